-- Park push bookkeeping: how many pushes of the record's current version failed, and
-- the last error, kept for operators. A business write resets both (a new version to push).
ALTER TABLE monitor_equip ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE risk_unit ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE risk_events ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE risk_measures ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE troubleshoot_task ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE troubleshoot_record ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE troubleshoot_info ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE ticket_base_info ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
ALTER TABLE train_base_info ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0, ADD COLUMN sync_error text;
