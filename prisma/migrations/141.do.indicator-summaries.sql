-- The indicators over a year without reading a year of periods (docs/supervision.md, "How the
-- indicators are counted"): a per-day tally of the inspection periods, kept by the statements that
-- write periods, and the indexes the alarm figures read by.
--
-- One row per enterprise, UTC day of the period's start and work type: the periods, the done ones
-- (a record names them) and the done late ones. A window of local dates reads the whole UTC days
-- inside it from here and the periods of the two partial days at its edges from inspection_period,
-- so the figures stay exact in any zone. Open and missed are told apart at read time (by `end`
-- against now), from the few periods still running.
CREATE TABLE inspection_period_day (
  "companyCode" text NOT NULL,
  "dayStart"    timestamptz NOT NULL,
  "workType"    text NOT NULL,
  periods       integer NOT NULL,
  done          integer NOT NULL,
  "doneLate"    integer NOT NULL,
  -- The counts in the key's index too: a year of an enterprise is read from the index alone.
  PRIMARY KEY ("companyCode", "dayStart", "workType") INCLUDE (periods, done, "doneLate")
);

-- The UTC day an instant falls in (its midnight).
CREATE FUNCTION utc_day(instant timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT date_bin('1 day', instant, timestamptz '2000-01-01 00:00:00+00')
$$;

-- Adds the tallies of the periods written by one statement (the upkeep writes many at once, a
-- record's re-judgement one), as the difference between the rows before and after: once per
-- statement, each day's row locked in key order.
CREATE FUNCTION inspection_period_day_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO inspection_period_day AS d ("companyCode", "dayStart", "workType", periods, done, "doneLate")
    SELECT "companyCode", utc_day(start), "workType", count(*), count("recordId"), count(*) FILTER (WHERE "recordId" IS NOT NULL AND "doneLate")
      FROM added GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT ("companyCode", "dayStart", "workType") DO UPDATE
      SET periods = d.periods + excluded.periods, done = d.done + excluded.done, "doneLate" = d."doneLate" + excluded."doneLate";
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO inspection_period_day AS d ("companyCode", "dayStart", "workType", periods, done, "doneLate")
    SELECT "companyCode", day, "workType", sum(periods), sum(done), sum(late) FROM (
      SELECT "companyCode", utc_day(start) AS day, "workType", -1 AS periods, -("recordId" IS NOT NULL)::int AS done,
             -("recordId" IS NOT NULL AND "doneLate")::int AS late FROM removed
      UNION ALL
      SELECT "companyCode", utc_day(start), "workType", 1, ("recordId" IS NOT NULL)::int, ("recordId" IS NOT NULL AND "doneLate")::int FROM added
    ) delta GROUP BY 1, 2, 3 HAVING sum(periods) <> 0 OR sum(done) <> 0 OR sum(late) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT ("companyCode", "dayStart", "workType") DO UPDATE
      SET periods = d.periods + excluded.periods, done = d.done + excluded.done, "doneLate" = d."doneLate" + excluded."doneLate";
  ELSE
    INSERT INTO inspection_period_day AS d ("companyCode", "dayStart", "workType", periods, done, "doneLate")
    SELECT "companyCode", utc_day(start), "workType", -count(*), -count("recordId"), -count(*) FILTER (WHERE "recordId" IS NOT NULL AND "doneLate")
      FROM removed GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT ("companyCode", "dayStart", "workType") DO UPDATE
      SET periods = d.periods + excluded.periods, done = d.done + excluded.done, "doneLate" = d."doneLate" + excluded."doneLate";
  END IF;
  RETURN NULL;
END
$$;
-- A trigger with transition tables takes one event each.
CREATE TRIGGER inspection_period_day_insert AFTER INSERT ON inspection_period
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION inspection_period_day_apply();
CREATE TRIGGER inspection_period_day_update AFTER UPDATE ON inspection_period
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION inspection_period_day_apply();
CREATE TRIGGER inspection_period_day_delete AFTER DELETE ON inspection_period
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION inspection_period_day_apply();

INSERT INTO inspection_period_day ("companyCode", "dayStart", "workType", periods, done, "doneLate")
SELECT "companyCode", utc_day(start), "workType", count(*), count("recordId"), count(*) FILTER (WHERE "recordId" IS NOT NULL AND "doneLate")
  FROM inspection_period GROUP BY 1, 2, 3;

-- A task's periods read by index alone (a year of an hourly task is some 9 000 periods, each on
-- another page of the table, the upkeep writing every task's periods as they start).
DROP INDEX inspection_period_task;
CREATE INDEX inspection_period_task ON inspection_period ("companyCode", "taskId", start) INCLUDE (id, "end", "recordId", "doneLate");

-- The periods without a record, by end: the running ones (open now) are the few ending after now.
CREATE INDEX inspection_period_undone ON inspection_period ("companyCode", "end") INCLUDE (start, "workType") WHERE "recordId" IS NULL;

-- Alarms raised in a window (by startTime), with what their breakdown and medians need; the active
-- ones of an enterprise (few) by kind.
CREATE INDEX monitor_alarm_company_start ON monitor_alarm ("companyCode", "startTime") INCLUDE (kind, "maxLevel", "acknowledgedTime", handling);
CREATE INDEX monitor_alarm_company_active ON monitor_alarm ("companyCode", kind) INCLUDE (shelved, "monitorEquipId") WHERE status = 'active';
