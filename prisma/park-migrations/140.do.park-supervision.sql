-- Park edition: supervision of dual prevention from what the enterprises push. The park is not an
-- author: its periods and calendars are the enterprises' own (pushed like records, keyed by
-- ("companyCode", id) and ("companyCode", year), migration 140), judged by the enterprise; so the
-- enterprise's upkeep of schedules and judgements does not run here.
DROP TRIGGER inspection_record_written ON troubleshoot_record;
DROP TRIGGER inspection_task_written ON troubleshoot_task;

-- Each enterprise's time zone (its `TZ`, pushed with its calendar): its days, working days and
-- current date (overdue hidden dangers) are read in it. An enterprise without a row: the park's own.
CREATE TABLE park_enterprise_zone (
  "companyCode" text PRIMARY KEY,
  "timeZone"    text NOT NULL,
  "updateTime"  timestamptz(3) NOT NULL DEFAULT now()
);
