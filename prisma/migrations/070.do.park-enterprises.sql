-- The park supervises many enterprises, applied to every edition:
-- - `enterprise` accounts (park edition) are bound to the enterprise's 9-digit companyCode;
-- - `sync_rounds`: how many times the sweep queued a record's failed push again (bounded, so a
--   record the park can never apply stays `failed` with its reason instead of being re-queued
--   silently forever). A business write, a manual retry or a reconciliation resets it.
ALTER TABLE app_user DROP CONSTRAINT app_user_role_check;
ALTER TABLE app_user ADD CONSTRAINT app_user_role_check CHECK (role IN ('admin', 'operator', 'viewer', 'enterprise'));
ALTER TABLE app_user ADD COLUMN "companyCode" text;
ALTER TABLE app_user ADD CONSTRAINT app_user_company_code CHECK ((role = 'enterprise') = ("companyCode" IS NOT NULL));

ALTER TABLE monitor_equip ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE risk_unit ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE risk_events ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE risk_measures ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE troubleshoot_task ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE troubleshoot_record ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE troubleshoot_info ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE ticket_base_info ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
ALTER TABLE train_base_info ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
