-- Reads at millions of records. `like` is a literal substring match written as
-- `LIKE '%…%'`, which trigram indexes (pg_trgm, in PostgreSQL's contrib) answer without reading
-- the table: one on each resource's name field, the fields operators search by substring. Other
-- text fields answer `like` by scanning. A value shorter than three characters cannot use them.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX monitor_equip_name_trgm ON monitor_equip USING gin ("monitorName" gin_trgm_ops) WHERE live;
CREATE INDEX risk_unit_name_trgm ON risk_unit USING gin ("riskUnitName" gin_trgm_ops) WHERE live;
CREATE INDEX risk_events_name_trgm ON risk_events USING gin ("riskEventName" gin_trgm_ops) WHERE live;
CREATE INDEX troubleshoot_info_name_trgm ON troubleshoot_info USING gin ("dangerName" gin_trgm_ops) WHERE live;
CREATE INDEX ticket_base_info_worker_trgm ON ticket_base_info USING gin ("workerName" gin_trgm_ops) WHERE live;
CREATE INDEX train_base_info_name_trgm ON train_base_info USING gin ("trainName" gin_trgm_ops) WHERE live;
