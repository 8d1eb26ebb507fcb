-- attachment/get names an attachment by its id alone (its companyCode only when several enterprises
-- hold the id, on the park): the key is ("companyCode", id), which PostgreSQL cannot search by id
-- alone, so each get read the whole table. An index of the live attachments by id.
CREATE INDEX monitor_equip_attachment_id ON monitor_equip_attachment (id) WHERE live;
CREATE INDEX risk_unit_attachment_id ON risk_unit_attachment (id) WHERE live;
CREATE INDEX risk_events_attachment_id ON risk_events_attachment (id) WHERE live;
CREATE INDEX risk_measures_attachment_id ON risk_measures_attachment (id) WHERE live;
CREATE INDEX troubleshoot_task_attachment_id ON troubleshoot_task_attachment (id) WHERE live;
CREATE INDEX troubleshoot_record_attachment_id ON troubleshoot_record_attachment (id) WHERE live;
CREATE INDEX troubleshoot_info_attachment_id ON troubleshoot_info_attachment (id) WHERE live;
CREATE INDEX ticket_base_info_attachment_id ON ticket_base_info_attachment (id) WHERE live;
CREATE INDEX train_base_info_attachment_id ON train_base_info_attachment (id) WHERE live;
