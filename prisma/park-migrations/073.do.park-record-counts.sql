-- Park edition only. How many live and deleted records each enterprise holds in each resource,
-- kept as the records are written, so that the park's overview (/system/enterprise/list) and a page
-- of one enterprise's records (an enterprise account's list, a search `companyCode eq` alone) have
-- their exact totals without counting rows: at tens of millions of records, counting took seconds.
--
-- Statement-level triggers (transition tables) add each statement's changes per enterprise: one
-- upsert per enterprise a statement touched (a pushed page is one statement), in companyCode order
-- so that concurrent statements lock the counters in the same order. They see every writer: the
-- push, an operator, a script.
CREATE TABLE park_record_count (
  "table"       text   NOT NULL,
  "companyCode" text   NOT NULL,
  live          bigint NOT NULL,
  deleted       bigint NOT NULL,
  PRIMARY KEY ("table", "companyCode")
);

CREATE FUNCTION park_count_records() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO park_record_count AS c ("table", "companyCode", live, deleted)
    SELECT TG_TABLE_NAME, "companyCode", count(*) FILTER (WHERE live), count(*) FILTER (WHERE live IS NULL)
    FROM new_rows GROUP BY "companyCode" ORDER BY "companyCode"
    ON CONFLICT ("table", "companyCode") DO UPDATE SET live = c.live + EXCLUDED.live, deleted = c.deleted + EXCLUDED.deleted;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO park_record_count AS c ("table", "companyCode", live, deleted)
    SELECT TG_TABLE_NAME, "companyCode", sum(live), sum(deleted)
    FROM (SELECT "companyCode", (live IS NOT NULL)::int AS live, (live IS NULL)::int AS deleted FROM new_rows
          UNION ALL
          SELECT "companyCode", -(live IS NOT NULL)::int, -(live IS NULL)::int FROM old_rows) AS changes
    GROUP BY "companyCode" HAVING sum(live) <> 0 OR sum(deleted) <> 0 ORDER BY "companyCode"
    ON CONFLICT ("table", "companyCode") DO UPDATE SET live = c.live + EXCLUDED.live, deleted = c.deleted + EXCLUDED.deleted;
  ELSE
    INSERT INTO park_record_count AS c ("table", "companyCode", live, deleted)
    SELECT TG_TABLE_NAME, "companyCode", -count(*) FILTER (WHERE live), -count(*) FILTER (WHERE live IS NULL)
    FROM old_rows GROUP BY "companyCode" ORDER BY "companyCode"
    ON CONFLICT ("table", "companyCode") DO UPDATE SET live = c.live + EXCLUDED.live, deleted = c.deleted + EXCLUDED.deleted;
  END IF;
  RETURN NULL;
END
$$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['monitor_equip', 'risk_unit', 'risk_events', 'risk_measures', 'troubleshoot_task',
                           'troubleshoot_record', 'troubleshoot_info', 'ticket_base_info', 'train_base_info'] LOOP
    -- What the park already holds, then every change (the table is locked meanwhile: nothing is missed).
    EXECUTE format('LOCK TABLE %I IN SHARE MODE', t);
    EXECUTE format(
      'INSERT INTO park_record_count ("table", "companyCode", live, deleted) '
      'SELECT %L, "companyCode", count(*) FILTER (WHERE live), count(*) FILTER (WHERE live IS NULL) FROM %I GROUP BY "companyCode"', t, t);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION park_count_records()', t || '_count_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION park_count_records()', t || '_count_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION park_count_records()', t || '_count_delete', t);
  END LOOP;
END
$$;
