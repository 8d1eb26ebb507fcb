-- Live monitoring: readings of the monitoring equipment, each point's evaluation state, and the
-- alarms the readings raise (see docs/monitoring.md).
--
-- The equipment's alarm settings: null is the documented default (deadband "0", no on-delay,
-- offline after 300 s, frozen off).
ALTER TABLE monitor_equip
  ADD COLUMN "alarmDeadband" text,
  ADD COLUMN "alarmDelaySeconds" integer,
  ADD COLUMN "offlineAfterSeconds" integer,
  ADD COLUMN "frozenAfterSeconds" integer;

-- A point: the equipment id once, a small number standing for it in each of its readings, what
-- evaluation remembers between readings (jsonb, written with the readings it judged), the newest
-- reading by time for the live board, and its shelving.
CREATE TABLE monitor_point (
  point              integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "monitorEquipId"   text NOT NULL UNIQUE,
  state              jsonb NOT NULL,
  -- When offline is due by the server's clock; null when it cannot be (never received, raised, 0).
  "offlineDue"       timestamptz(3),
  "newestTime"       integer,
  "newestValue"      text,
  "newestQuality"    smallint,
  "shelvedUntil"     timestamptz(3),
  "shelveReason"     text
);
CREATE INDEX monitor_point_offline_due ON monitor_point ("offlineDue") WHERE "offlineDue" IS NOT NULL;

-- Readings, some 800 million a day nationally, so every byte of a row counts:
-- - time: seconds since 2000-01-01T00:00:00Z as int4 (readings are kept to the second, like every
--   instant; int4 reaches 2068), half of a timestamptz;
-- - point: int4, the point's number above, not its text id;
-- - value: numeric keeps the decimal as sent (scale and trailing zeros included), compares exactly
--   and aggregates exactly; `sent` holds the text only where numeric would not give it back (a
--   negative zero), null (no byte) otherwise;
-- - fault: quality 1.
-- A repeat of (point, time) is a duplicate: the primary key refuses it and the first value stays.
-- Partitioned by UTC day on time: a day past the retention is dropped whole, not deleted row by row.
CREATE TABLE monitor_reading (
  time   integer NOT NULL,
  point  integer NOT NULL,
  fault  boolean NOT NULL,
  value  numeric NOT NULL,
  sent   text,
  PRIMARY KEY (point, time)
) PARTITION BY RANGE (time);

-- The instant a reading's time stands for.
CREATE FUNCTION reading_instant(seconds integer) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT timestamptz '2000-01-01 00:00:00+00' + seconds * interval '1 second'
$$;

-- Alarms: raised, changed and cleared by evaluation, handled by people (acknowledge, dispose). One
-- active alarm per point and kind. Every change is an entry of record_history (resource
-- 'monitorAlarm'), written in the transaction of the change, versions counted here.
CREATE TABLE monitor_alarm (
  id                    text PRIMARY KEY,
  "monitorEquipId"      text NOT NULL,
  "monitorCode"         text NOT NULL,
  "monitorName"         text NOT NULL,
  kind                  text NOT NULL CHECK (kind IN ('high', 'low', 'outOfRange', 'fault', 'offline', 'frozen')),
  level                 integer CHECK (level IN (1, 2)),
  "maxLevel"            integer CHECK ("maxLevel" IN (1, 2)),
  threshold             text,
  "startTime"           timestamptz(3) NOT NULL,
  "startValue"          text,
  "peakValue"           text,
  "endTime"             timestamptz(3),
  "endValue"            text,
  status                text NOT NULL CHECK (status IN ('active', 'cleared')),
  handling              text NOT NULL DEFAULT 'raised' CHECK (handling IN ('raised', 'acknowledged', 'disposed')),
  "acknowledgedBy"      text,
  "acknowledgedTime"    timestamptz(3),
  -- {cause, measures, disposedBy, disposedTime, troubleshootInfoId} as read (disposedTime in the
  -- wire form of the configured zone), once disposed.
  disposal              jsonb,
  shelved               boolean NOT NULL DEFAULT false,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_error text, sync_attempts integer NOT NULL DEFAULT 0, sync_rounds integer NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 1,
  -- Alarms are never deleted: always true, so that the reads of records serve them as they are.
  live boolean NOT NULL DEFAULT true CHECK (live)
);
CREATE UNIQUE INDEX monitor_alarm_active ON monitor_alarm ("monitorEquipId", kind) WHERE status = 'active';
CREATE INDEX monitor_alarm_recent ON monitor_alarm ("updateTime" DESC, id);
CREATE INDEX monitor_alarm_unsynced ON monitor_alarm ("updateTime", id) WHERE sync_status <> 'synced';

-- Photos of the scene, attached to alarms like files to records.
CREATE TABLE monitor_alarm_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL CONSTRAINT "monitor_alarm_attachment_recordId_ref" REFERENCES monitor_alarm (id),
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text, sync_rounds integer NOT NULL DEFAULT 0,
  PRIMARY KEY ("companyCode", id)
);
CREATE INDEX monitor_alarm_attachment_id ON monitor_alarm_attachment (id) WHERE live;
ALTER TABLE monitor_alarm_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX monitor_alarm_attachment_record ON monitor_alarm_attachment ("recordId") WHERE live;

-- The collector role: a data-acquisition gateway's account, which sends readings and nothing else.
ALTER TABLE app_user DROP CONSTRAINT app_user_role_check;
ALTER TABLE app_user ADD CONSTRAINT app_user_role_check CHECK (role IN ('admin', 'operator', 'viewer', 'enterprise', 'collector'));
