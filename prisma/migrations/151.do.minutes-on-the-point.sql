-- The minutes of readings the park has yet to receive move onto the point's own row, which every
-- batch of readings rewrites anyway (a heap-only update): noting them in a table of their own cost
-- an index write per point and batch. "pushFrom" is the earliest minute (reading seconds) a batch
-- changed since a push last claimed the point's minutes; a drain moves it to "pushTaken" (the
-- earliest minute of the push under way) and clears that once the park answered for every minute
-- from there. A reading stored after the claim sets "pushFrom" again, so nothing is forgotten.
ALTER TABLE monitor_point ADD COLUMN "pushFrom" integer, ADD COLUMN "pushTaken" integer;
UPDATE monitor_point AS p SET "pushFrom" = m.minute
  FROM (SELECT point, min(minute) AS minute FROM monitor_minute_changed GROUP BY point) AS m
  WHERE m.point = p.point;
-- Neither is indexed, so that the ingest's and the drains' updates stay heap-only; a drain finds
-- its points by scanning monitor_point, one row per point.
DROP TABLE monitor_minute_changed;
DROP SEQUENCE monitor_minute_change;
-- The evaluation state is written whole and read whole by the service, never queried: json keeps
-- it as text, sparing its conversion to and from jsonb at every batch.
ALTER TABLE monitor_point ALTER COLUMN state TYPE json USING state::json;
