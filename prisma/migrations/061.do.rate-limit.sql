-- Rate-limit counters shared by every instance on this database, when no REDIS_URL is set:
-- one row per limited key and window. UNLOGGED: a counter is worth no WAL and no replica (a crash
-- empties the table, which only forgives the current windows). Expired rows are pruned by the
-- housekeeping job.
CREATE UNLOGGED TABLE rate_limit (
  key        text PRIMARY KEY,
  count      integer NOT NULL,
  "resetAt"  timestamptz(3) NOT NULL
);
CREATE INDEX rate_limit_reset ON rate_limit ("resetAt");
