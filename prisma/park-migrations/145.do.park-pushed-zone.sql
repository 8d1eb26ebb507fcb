-- The zone an enterprise pushed, by the version it pushed (a late retry never overwrites a newer
-- zone), as pushed periods and calendars are kept (migration 140).
ALTER TABLE park_enterprise_zone ADD COLUMN version bigint NOT NULL DEFAULT 0;
