-- Park edition only. The enterprise's unique fields lost their unique indexes on the park (071:
-- uniqueness is the enterprises' to enforce), but operators still look records up and sort by
-- them: `eq` on `monitorCode` or `ticketNo`, over every enterprise, and a search ordered by one of
-- them are answered from these indexes (code-point order, as on the enterprise: migration 090).
CREATE INDEX "monitor_equip_park_monitorCode" ON monitor_equip ("monitorCode" COLLATE "C") WHERE live;
CREATE INDEX "ticket_base_info_park_ticketNo" ON ticket_base_info ("ticketNo" COLLATE "C") WHERE live;
