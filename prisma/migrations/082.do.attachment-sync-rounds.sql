-- Bounded re-queue of failed pushes (migration 070, SYNC_FAILED_REQUEUE_ROUNDS) for attachments too:
-- how many times the sweep queued an attachment's failed push again.
ALTER TABLE monitor_equip_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE risk_unit_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE risk_events_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE risk_measures_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE troubleshoot_task_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE troubleshoot_record_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE troubleshoot_info_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE ticket_base_info_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE train_base_info_attachment ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
