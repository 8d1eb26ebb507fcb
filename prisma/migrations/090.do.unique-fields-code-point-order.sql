-- Unique fields (monitorCode, ticketNo) are sorted in code-point order (COLLATE "C", as every string
-- sort key of a search): their unique indexes become indexes in that order, so that a search ordered
-- by one of them reads its first rows from the index instead of sorting every record. Equality is
-- the same under both (deterministic collations compare bytes), so uniqueness does not change; the
-- statements comparing these fields name the collation so that the index applies.
-- On the park these indexes were dropped (park migration 071: uniqueness is the enterprises' to
-- enforce); there is nothing to rebuild there.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'monitor_equip_monitorCode_unique') THEN
    DROP INDEX "monitor_equip_monitorCode_unique";
    CREATE UNIQUE INDEX "monitor_equip_monitorCode_unique" ON monitor_equip ("monitorCode" COLLATE "C") WHERE live;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'ticket_base_info_ticketNo_unique') THEN
    DROP INDEX "ticket_base_info_ticketNo_unique";
    CREATE UNIQUE INDEX "ticket_base_info_ticketNo_unique" ON ticket_base_info ("ticketNo" COLLATE "C") WHERE live;
  END IF;
END $$;
