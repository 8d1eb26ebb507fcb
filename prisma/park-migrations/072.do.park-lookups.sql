-- Park edition only. The enterprise's unique fields lost their unique indexes on the park (071:
-- uniqueness is the enterprises' to enforce), but operators still look records up by them: a
-- search `eq` on `monitorCode` or `ticketNo` is answered from these indexes, over every enterprise,
-- at any table size.
CREATE INDEX "monitor_equip_park_monitorCode" ON monitor_equip ("monitorCode") WHERE live;
CREATE INDEX "ticket_base_info_park_ticketNo" ON ticket_base_info ("ticketNo") WHERE live;
