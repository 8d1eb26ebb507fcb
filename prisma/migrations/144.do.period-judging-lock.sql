-- A record's write and the upkeep's new periods of the same task judge each other under one lock.
-- Without it, a record committed while the upkeep was inserting the period holding its checkTime
-- was seen by neither: the record's re-judgement did not see the uncommitted period, and the
-- period's insert did not see the uncommitted record. Each takes this transaction-level advisory
-- lock first, so whichever comes second reads the other's committed rows (each statement reads
-- afresh under READ COMMITTED).
CREATE FUNCTION inspection_task_lock(company text, task text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtextextended('inspection:' || company || '/' || task, 0))
$$;

CREATE OR REPLACE FUNCTION inspection_record_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD."checkTaskId" IS NOT DISTINCT FROM NEW."checkTaskId"
     AND OLD."checkTime" IS NOT DISTINCT FROM NEW."checkTime" AND OLD."checkStatus" IS NOT DISTINCT FROM NEW."checkStatus"
     AND OLD.live IS NOT DISTINCT FROM NEW.live AND OLD."createTime" IS NOT DISTINCT FROM NEW."createTime" THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    PERFORM inspection_task_lock(OLD."companyCode", OLD."checkTaskId");
    PERFORM inspection_rejudge(OLD."companyCode", OLD."checkTaskId", OLD."checkTime");
  END IF;
  PERFORM inspection_task_lock(NEW."companyCode", NEW."checkTaskId");
  PERFORM inspection_rejudge(NEW."companyCode", NEW."checkTaskId", NEW."checkTime");
  RETURN NULL;
END
$$;
