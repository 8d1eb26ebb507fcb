-- The push reads pending records oldest write first, in pages (keyset on ("updateTime", id)): an index
-- of the pending ones in that order, so a page costs its own rows, not a sort of the whole backlog.
CREATE INDEX monitor_equip_push_order ON monitor_equip ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX risk_unit_push_order ON risk_unit ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX risk_events_push_order ON risk_events ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX risk_measures_push_order ON risk_measures ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX troubleshoot_task_push_order ON troubleshoot_task ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX troubleshoot_record_push_order ON troubleshoot_record ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX troubleshoot_info_push_order ON troubleshoot_info ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX ticket_base_info_push_order ON ticket_base_info ("updateTime", id) WHERE sync_status = 'pending';
CREATE INDEX train_base_info_push_order ON train_base_info ("updateTime", id) WHERE sync_status = 'pending';
