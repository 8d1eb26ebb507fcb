-- `period.missed` events (docs/events.md). The period upkeep adds each period it writes while it
-- runs (its end still ahead) to `period_watch`, in the transaction that writes the period; the
-- upkeep's job takes the watched periods whose end has passed, with SKIP LOCKED, deletes them and
-- records the event of each that ended without a record, in that transaction: the deleted watch row
-- is the marker that the period was looked at, so several instances never record one twice. A
-- period written already ended (a task added with a start in the past) was never running and is
-- not watched. The table holds the running periods only (about one per task).
CREATE TABLE period_watch (
  "companyCode" text NOT NULL,
  id            text NOT NULL,
  "end"         timestamptz(3) NOT NULL,
  PRIMARY KEY ("companyCode", id)
);
CREATE INDEX period_watch_end ON period_watch ("end");
