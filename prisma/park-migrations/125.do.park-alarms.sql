-- Park edition only. Alarms are pushed like records (/system/push/records, resource monitorAlarm):
-- keyed by ("companyCode", id), as the records (071). The enterprise keeps one active alarm per
-- point and kind; here two enterprises may use one point id, and a page may hold an alarm's clearing
-- and the next one's raising in any order: that uniqueness is the enterprise's to enforce.
ALTER TABLE monitor_alarm_attachment DROP CONSTRAINT "monitor_alarm_attachment_recordId_ref";
ALTER TABLE monitor_alarm DROP CONSTRAINT monitor_alarm_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX monitor_alarm_park_id ON monitor_alarm (id);
DROP INDEX monitor_alarm_active;
CREATE INDEX monitor_alarm_park_active ON monitor_alarm ("companyCode", "monitorEquipId") WHERE status = 'active';
CREATE INDEX monitor_alarm_park_company ON monitor_alarm ("companyCode", "updateTime" DESC, id) WHERE live;
-- A push applies tombstones as for records (the enterprise never deletes an alarm, another pusher may).
ALTER TABLE monitor_alarm ALTER COLUMN live DROP NOT NULL, ADD COLUMN "deleteTime" timestamptz(3);

-- Counted per enterprise as they are written, as the records (073).
LOCK TABLE monitor_alarm IN SHARE MODE;
INSERT INTO park_record_count ("table", "companyCode", live, deleted)
SELECT 'monitor_alarm', "companyCode", count(*) FILTER (WHERE live), count(*) FILTER (WHERE live IS NULL) FROM monitor_alarm GROUP BY "companyCode";
CREATE TRIGGER monitor_alarm_count_insert AFTER INSERT ON monitor_alarm REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION park_count_records();
CREATE TRIGGER monitor_alarm_count_update AFTER UPDATE ON monitor_alarm REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION park_count_records();
CREATE TRIGGER monitor_alarm_count_delete AFTER DELETE ON monitor_alarm REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION park_count_records();
