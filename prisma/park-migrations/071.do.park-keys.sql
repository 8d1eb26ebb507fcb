-- Park edition only (applied after the common migrations, tracked in park_schema_version).
--
-- The park holds what many enterprises pushed: records are keyed by
-- ("companyCode", id), so two enterprises may use the same id. Uniqueness (monitorCode, ticketNo)
-- and references (parent ids) are the enterprises' to enforce: the park drops those constraints,
-- so any sequence of writes an enterprise accepted converges here whatever order its pushes
-- arrive in (two records swapping their monitorCode while the park was down, parents and children
-- changing in one drain, delete and re-add patterns).

-- Attachments (migration 081, which runs first) are keyed by ("companyCode", id) already; on the park
-- they name their record without a reference, like the records (the (id, live) keys they referenced
-- are dropped below).
ALTER TABLE monitor_equip_attachment DROP CONSTRAINT "monitor_equip_attachment_recordId_ref";
ALTER TABLE risk_unit_attachment DROP CONSTRAINT "risk_unit_attachment_recordId_ref";
ALTER TABLE risk_events_attachment DROP CONSTRAINT "risk_events_attachment_recordId_ref";
ALTER TABLE risk_measures_attachment DROP CONSTRAINT "risk_measures_attachment_recordId_ref";
ALTER TABLE troubleshoot_task_attachment DROP CONSTRAINT "troubleshoot_task_attachment_recordId_ref";
ALTER TABLE troubleshoot_record_attachment DROP CONSTRAINT "troubleshoot_record_attachment_recordId_ref";
ALTER TABLE troubleshoot_info_attachment DROP CONSTRAINT "troubleshoot_info_attachment_recordId_ref";
ALTER TABLE ticket_base_info_attachment DROP CONSTRAINT "ticket_base_info_attachment_recordId_ref";
ALTER TABLE train_base_info_attachment DROP CONSTRAINT "train_base_info_attachment_recordId_ref";
ALTER TABLE monitor_equip DROP CONSTRAINT monitor_equip_id_live;
ALTER TABLE troubleshoot_info DROP CONSTRAINT troubleshoot_info_id_live;
ALTER TABLE ticket_base_info DROP CONSTRAINT ticket_base_info_id_live;
ALTER TABLE train_base_info DROP CONSTRAINT train_base_info_id_live;

ALTER TABLE risk_events DROP CONSTRAINT "risk_events_riskUnitId_ref";
ALTER TABLE risk_measures DROP CONSTRAINT "risk_measures_riskEventId_ref";
ALTER TABLE troubleshoot_task DROP CONSTRAINT "troubleshoot_task_riskMeasureId_ref";
ALTER TABLE troubleshoot_record DROP CONSTRAINT "troubleshoot_record_checkTaskId_ref";
ALTER TABLE troubleshoot_info DROP CONSTRAINT "troubleshoot_info_riskMeasureId_ref";
ALTER TABLE troubleshoot_info DROP CONSTRAINT "troubleshoot_info_checkRecordId_ref";
ALTER TABLE monitor_equip DROP CONSTRAINT monitor_equip_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX monitor_equip_park_id ON monitor_equip (id);
ALTER TABLE risk_unit DROP CONSTRAINT risk_unit_id_live_key;
ALTER TABLE risk_unit DROP CONSTRAINT risk_unit_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX risk_unit_park_id ON risk_unit (id);
ALTER TABLE risk_events DROP CONSTRAINT risk_events_id_live_key;
ALTER TABLE risk_events DROP CONSTRAINT risk_events_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX risk_events_park_id ON risk_events (id);
ALTER TABLE risk_measures DROP CONSTRAINT risk_measures_id_live_key;
ALTER TABLE risk_measures DROP CONSTRAINT risk_measures_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX risk_measures_park_id ON risk_measures (id);
ALTER TABLE troubleshoot_task DROP CONSTRAINT troubleshoot_task_id_live_key;
ALTER TABLE troubleshoot_task DROP CONSTRAINT troubleshoot_task_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX troubleshoot_task_park_id ON troubleshoot_task (id);
ALTER TABLE troubleshoot_record DROP CONSTRAINT troubleshoot_record_id_live_key;
ALTER TABLE troubleshoot_record DROP CONSTRAINT troubleshoot_record_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX troubleshoot_record_park_id ON troubleshoot_record (id);
ALTER TABLE troubleshoot_info DROP CONSTRAINT troubleshoot_info_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX troubleshoot_info_park_id ON troubleshoot_info (id);
ALTER TABLE ticket_base_info DROP CONSTRAINT ticket_base_info_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX ticket_base_info_park_id ON ticket_base_info (id);
ALTER TABLE train_base_info DROP CONSTRAINT train_base_info_pkey, ADD PRIMARY KEY ("companyCode", id);
CREATE INDEX train_base_info_park_id ON train_base_info (id);
DROP INDEX "monitor_equip_monitorCode_unique";
DROP INDEX "ticket_base_info_ticketNo_unique";

-- Per enterprise: when its last push arrived (POST /system/enterprise/list).
CREATE TABLE park_enterprise (
  "companyCode"  text PRIMARY KEY,
  "lastPushTime" timestamptz(3) NOT NULL
);
