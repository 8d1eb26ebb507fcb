-- Park edition only. The enterprise's unique fields lost their unique indexes on the park (071:
-- uniqueness is the enterprises' to enforce), but operators still look records up and sort by
-- them: `eq` on `monitorCode` or `ticketNo`, over every enterprise, and a search ordered by one of
-- them are answered from these indexes (code-point order, as on the enterprise: migration 090).
CREATE INDEX "monitor_equip_park_monitorCode" ON monitor_equip ("monitorCode" COLLATE "C") WHERE live;
CREATE INDEX "ticket_base_info_park_ticketNo" ON ticket_base_info ("ticketNo" COLLATE "C") WHERE live;

-- One enterprise's records, newest first: what an enterprise account reads (its own)
-- and what a park operator's `eq companyCode` asks for, from an index whatever the other
-- enterprises hold.
CREATE INDEX monitor_equip_park_company ON monitor_equip ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX risk_unit_park_company ON risk_unit ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX risk_events_park_company ON risk_events ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX risk_measures_park_company ON risk_measures ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX troubleshoot_task_park_company ON troubleshoot_task ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX troubleshoot_record_park_company ON troubleshoot_record ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX troubleshoot_info_park_company ON troubleshoot_info ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX ticket_base_info_park_company ON ticket_base_info ("companyCode", "updateTime" DESC, id) WHERE live;
CREATE INDEX train_base_info_park_company ON train_base_info ("companyCode", "updateTime" DESC, id) WHERE live;
