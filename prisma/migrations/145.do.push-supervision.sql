-- Supervision pushed to the park like records (docs/push-protocol.md): the inspection periods, the
-- working-day calendar and the enterprise's zone carry the push state every pushed table carries
-- (attempts, the sweep's rounds), are read by the push oldest write first, and are settled by id.
-- They are never deleted (`live` is always true): an ended period stays a fact, a calendar year is
-- replaced, the zone is the configured one.
ALTER TABLE inspection_period
  ADD COLUMN live boolean DEFAULT true,
  ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
CREATE INDEX inspection_period_id ON inspection_period (id);
CREATE INDEX inspection_period_push_order ON inspection_period ("updateTime", id) WHERE sync_status = 'pending';

-- A calendar year is pushed as an item whose id is its year.
ALTER TABLE work_calendar
  ADD COLUMN id text GENERATED ALWAYS AS (year::text) STORED,
  ADD COLUMN live boolean DEFAULT true,
  ADD COLUMN sync_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN sync_rounds integer NOT NULL DEFAULT 0;
CREATE INDEX work_calendar_id ON work_calendar (id);

-- The zone the enterprise reads its days in (`TZ`), one row, written just after the edition starts
-- (a new version when the configured zone changed): the park reads that enterprise's days in it.
CREATE TABLE enterprise_zone (
  "companyCode"  text PRIMARY KEY,
  id             text GENERATED ALWAYS AS ("companyCode") STORED,
  "timeZone"     text NOT NULL,
  "updateTime"   timestamptz(3) NOT NULL DEFAULT now(),
  version        bigint NOT NULL DEFAULT 1,
  live           boolean DEFAULT true,
  sync_status    text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time      timestamptz(3),
  sync_error     text,
  sync_attempts  integer NOT NULL DEFAULT 0,
  sync_rounds    integer NOT NULL DEFAULT 0
);
CREATE INDEX enterprise_zone_id ON enterprise_zone (id);

-- A period judged again (inspection_rejudge) is a new version to push, with a fresh count of
-- attempts, as a record written again is.
CREATE FUNCTION inspection_period_new_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.sync_attempts := 0;
  NEW.sync_rounds := 0;
  RETURN NEW;
END
$$;
CREATE TRIGGER inspection_period_new_version BEFORE UPDATE ON inspection_period
  FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version) EXECUTE FUNCTION inspection_period_new_version();
