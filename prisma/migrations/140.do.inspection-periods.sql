-- Supervision of dual prevention: inspection periods kept as facts, the working-day calendar, and
-- the indexes the indicators read by (docs/supervision.md).
--
-- A task's schedule is kept as its versions (`inspection_schedule.versions`): the task as first
-- written, then one version per edit of its cycle, unit, window, day type, start or work type, and
-- one for its deletion, each with the instant it took effect. Periods are computed from them in the
-- application (src/domain/supervision/inspection-periods.ts) as they start, and kept as rows: an
-- edited or deleted task never rewrites a period already started. `resumeFrom` is where the next
-- look for periods starts, `nextStart` when the next due period starts (the upkeep takes the tasks
-- whose `nextStart` has come, by index; a write of the task sets it to now).
CREATE TABLE inspection_schedule (
  "companyCode" text NOT NULL,
  "taskId"      text NOT NULL,
  versions      jsonb NOT NULL DEFAULT '[]',
  "resumeFrom"  timestamptz(3),
  "nextStart"   timestamptz(3),
  PRIMARY KEY ("companyCode", "taskId")
);
CREATE INDEX inspection_schedule_next ON inspection_schedule ("nextStart") WHERE "nextStart" IS NOT NULL;

-- One row per due period. The judgement (`recordId`, `doneLate`) follows the live records: the
-- earliest live record by checkTime (status other than 2) inside the period names it. The status is
-- not stored: done with a record, else missed once `end` has passed, else open.
CREATE TABLE inspection_period (
  "companyCode" text NOT NULL,
  id            text NOT NULL,
  "taskId"      text NOT NULL,
  start         timestamptz(3) NOT NULL,
  "end"         timestamptz(3) NOT NULL,
  "workType"    text NOT NULL,
  "recordId"    text,
  "doneLate"    boolean NOT NULL DEFAULT false,
  "createTime"  timestamptz(3) NOT NULL DEFAULT now(),
  "updateTime"  timestamptz(3) NOT NULL DEFAULT now(),
  version       bigint NOT NULL DEFAULT 1,
  sync_status   text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time     timestamptz(3),
  sync_error    text,
  PRIMARY KEY ("companyCode", id)
);
CREATE INDEX inspection_period_task ON inspection_period ("companyCode", "taskId", start);
CREATE INDEX inspection_period_start ON inspection_period ("companyCode", start) INCLUDE ("end", "workType", "recordId", "doneLate");
CREATE INDEX inspection_period_unsynced ON inspection_period (sync_status) WHERE sync_status <> 'synced';

-- The working-day calendar, one row per enterprise and year that has lists (a year without a row is
-- Monday to Friday).
CREATE TABLE work_calendar (
  "companyCode" text NOT NULL,
  year          integer NOT NULL,
  holidays      text[] NOT NULL,
  workdays      text[] NOT NULL,
  "updateTime"  timestamptz(3) NOT NULL DEFAULT now(),
  version       bigint NOT NULL DEFAULT 1,
  sync_status   text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time     timestamptz(3),
  sync_error    text,
  PRIMARY KEY ("companyCode", year)
);

-- The records a period is judged by, found by task and checkTime.
CREATE INDEX troubleshoot_record_task_time ON troubleshoot_record ("checkTaskId", "checkTime") WHERE live;
-- Indicators over a window: hidden dangers by registTime and open ones, tickets by planStartTime
-- and running ones, training by trainStartTime.
CREATE INDEX troubleshoot_info_regist ON troubleshoot_info ("companyCode", "registTime") INCLUDE ("dangerState") WHERE live;
CREATE INDEX troubleshoot_info_open ON troubleshoot_info ("companyCode", "dangerManageDeadline") INCLUDE ("dangerLevel")
  WHERE live AND "dangerState" <> '9';
CREATE INDEX ticket_base_info_plan_start ON ticket_base_info ("companyCode", "planStartTime") INCLUDE ("workType", "ticketStatus") WHERE live;
CREATE INDEX ticket_base_info_running ON ticket_base_info ("companyCode", "planEndTime") WHERE live AND "ticketStatus" IN ('1', '2');
CREATE INDEX train_base_info_start ON train_base_info ("companyCode", "trainStartTime")
  INCLUDE ("trainHours", "participantCount", "passCount") WHERE live;

-- A period's judgement from the live records of its task: `recordId` and `doneLate` set afresh for
-- the period of `task` holding `instant`. A task's periods never overlap, so that is the latest one
-- starting by `instant`, if it has not ended by then: one index probe, however many periods the
-- task has.
CREATE FUNCTION inspection_rejudge(company text, task text, instant timestamptz) RETURNS void LANGUAGE sql AS $$
  UPDATE inspection_period p
     SET "recordId" = judged.id, "doneLate" = coalesce(judged.late, false), "updateTime" = now(),
         version = p.version + 1, sync_status = 'pending', sync_error = NULL
    FROM (
      SELECT c."companyCode", c.id, c."taskId", c.start, c."end" FROM inspection_period c
       WHERE c."companyCode" = company AND c."taskId" = task AND c.start <= instant
       ORDER BY c.start DESC LIMIT 1
    ) q
    LEFT JOIN LATERAL (
      SELECT r.id, r."createTime" >= q."end" AS late FROM troubleshoot_record r
       WHERE r."checkTaskId" = q."taskId" AND r."companyCode" = q."companyCode" AND r.live
         AND r."checkStatus" IS DISTINCT FROM '2' AND r."checkTime" >= q.start AND r."checkTime" < q."end"
       ORDER BY r."checkTime", r.id LIMIT 1
    ) judged ON true
   WHERE p."companyCode" = q."companyCode" AND p.id = q.id AND q."end" > instant
     AND (p."recordId" IS DISTINCT FROM judged.id OR p."doneLate" IS DISTINCT FROM coalesce(judged.late, false))
$$;

-- A record written, changed or deleted (a tombstone is an update) re-judges the periods holding its
-- checkTime, before and after the write, in the write's own transaction.
CREATE FUNCTION inspection_record_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD."checkTaskId" IS NOT DISTINCT FROM NEW."checkTaskId"
     AND OLD."checkTime" IS NOT DISTINCT FROM NEW."checkTime" AND OLD."checkStatus" IS NOT DISTINCT FROM NEW."checkStatus"
     AND OLD.live IS NOT DISTINCT FROM NEW.live AND OLD."createTime" IS NOT DISTINCT FROM NEW."createTime" THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    PERFORM inspection_rejudge(OLD."companyCode", OLD."checkTaskId", OLD."checkTime");
  END IF;
  PERFORM inspection_rejudge(NEW."companyCode", NEW."checkTaskId", NEW."checkTime");
  RETURN NULL;
END
$$;
CREATE TRIGGER inspection_record_written AFTER INSERT OR UPDATE ON troubleshoot_record
  FOR EACH ROW EXECUTE FUNCTION inspection_record_written();

-- A task written: a new schedule version when what decides its periods changed (its first, as
-- written, with `since` null), and its periods looked for at once (`nextStart` now).
CREATE FUNCTION inspection_task_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  version jsonb;
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.live IS NOT DISTINCT FROM NEW.live
     AND OLD."checkCycle" IS NOT DISTINCT FROM NEW."checkCycle" AND OLD."checkCycleUnit" IS NOT DISTINCT FROM NEW."checkCycleUnit"
     AND OLD."taskStartTime" IS NOT DISTINCT FROM NEW."taskStartTime" AND OLD."workStartTime" IS NOT DISTINCT FROM NEW."workStartTime"
     AND OLD."workEndTime" IS NOT DISTINCT FROM NEW."workEndTime" AND OLD."workDayType" IS NOT DISTINCT FROM NEW."workDayType"
     AND OLD."workType" IS NOT DISTINCT FROM NEW."workType" THEN
    RETURN NULL;
  END IF;
  version := jsonb_build_object(
    'since', CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE (extract(epoch FROM clock_timestamp()) * 1000)::bigint END,
    'deleted', NEW.live IS NULL,
    'anchor', (extract(epoch FROM coalesce(NEW."taskStartTime", NEW."createTime")) * 1000)::bigint,
    'checkCycle', NEW."checkCycle",
    'checkCycleUnit', NEW."checkCycleUnit",
    'workStartTime', NEW."workStartTime",
    'workEndTime', NEW."workEndTime",
    'workDayType', NEW."workDayType",
    'workType', NEW."workType");
  INSERT INTO inspection_schedule ("companyCode", "taskId", versions, "nextStart")
  VALUES (NEW."companyCode", NEW.id, jsonb_build_array(version), now())
  ON CONFLICT ("companyCode", "taskId") DO UPDATE
    SET versions = inspection_schedule.versions || version, "nextStart" = now();
  RETURN NULL;
END
$$;
CREATE TRIGGER inspection_task_written AFTER INSERT OR UPDATE ON troubleshoot_task
  FOR EACH ROW EXECUTE FUNCTION inspection_task_written();

-- The enterprise's date at an instant, in its zone as configured (`TZ`): an offset (`+08:00`, `Z`)
-- or an IANA name. An offset is read as an interval (east of UTC positive), not as a POSIX zone
-- name, whose sign is the other way round.
CREATE FUNCTION enterprise_date(zone text, instant timestamptz) RETURNS date LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN zone ~ '^[+-][0-9]{2}:[0-9]{2}$' THEN (instant AT TIME ZONE zone::interval)::date
    WHEN zone = 'Z' THEN (instant AT TIME ZONE 'UTC')::date
    ELSE (instant AT TIME ZONE zone)::date
  END
$$;
