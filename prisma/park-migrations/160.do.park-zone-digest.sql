-- Reconciliation compares an enterprise's pushed zone as it compares records, by (id, version,
-- deleted): the zone's id is the companyCode it was pushed with (as on the enterprise, migration
-- 145), and it is never deleted.
ALTER TABLE park_enterprise_zone
  ADD COLUMN id text GENERATED ALWAYS AS ("companyCode") STORED,
  ADD COLUMN live boolean DEFAULT true;
