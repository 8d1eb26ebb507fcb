-- Initial schema: users and auth state, and the nine resources.
--
-- Every resource row carries the server-kept fields, a `version` bumped by each business write (the
-- park push compares versions so a late retry never overwrites newer data) and `live`: true while the
-- record exists, NULL once deleted. Deleted rows stay as tombstones (ids are never reused, deletes
-- are pushed). Children reference (parentId, live) -> parent (id, live), so PostgreSQL itself refuses
-- a child of a missing or deleted parent and the deletion of a parent that live children still name,
-- with the right locking under concurrency. A deleted child sets live NULL, which ends its reference.

CREATE TABLE app_user (
  "userName"         text PRIMARY KEY,
  "passwordHash"     text NOT NULL,
  role               text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  enabled            boolean NOT NULL DEFAULT true,
  -- Bumped when the password changes or the user is disabled: older tokens stop working.
  "tokenGeneration"  integer NOT NULL DEFAULT 0,
  "createTime"       timestamptz(3) NOT NULL DEFAULT now(),
  "updateTime"       timestamptz(3) NOT NULL DEFAULT now()
);

-- A logout revokes its login session: the access and refresh tokens issued by one login share a sid.
CREATE TABLE revoked_session (
  sid         text PRIMARY KEY,
  "expiresAt" timestamptz(3) NOT NULL
);
CREATE INDEX revoked_session_expires ON revoked_session ("expiresAt");

CREATE TABLE app_setting (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE monitor_equip (
  id                         text PRIMARY KEY,
  "monitorName"              text NOT NULL,
  "monitorCode"              text NOT NULL,
  "monitorType"              text NOT NULL,
  "numericalUnit"            text NOT NULL,
  "rangeMax"                 text NOT NULL,
  "rangeMin"                 text NOT NULL,
  "responsibilityPeopleName" text NOT NULL,
  "deptName"                 text NOT NULL,
  longitude                  double precision NOT NULL,
  latitude                   double precision NOT NULL,
  address                    text NOT NULL,
  manufacturer               text NOT NULL,
  "checkTime"                timestamptz(3) NOT NULL,
  "checkCycle"               text NOT NULL,
  "oneLevelHigh"             text NOT NULL,
  "twoLevelHigh"             text NOT NULL,
  "oneLevelLow"              text NOT NULL,
  "twoLevelLow"              text NOT NULL,
  "monitorSpotType"          text NOT NULL,
  state                      text NOT NULL,
  "equipmentType"            text NOT NULL,
  "equipmentName"            text NOT NULL,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3)
);
CREATE UNIQUE INDEX monitor_equip_code_live ON monitor_equip ("monitorCode") WHERE live;

CREATE TABLE risk_unit (
  id                   text PRIMARY KEY,
  "riskUnitName"       text NOT NULL,
  "hazardCode"         text,
  "hazardDep"          text,
  "hazardLiablePerson" text,
  "riskLevel"          text,
  longitude            double precision,
  latitude             double precision,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  UNIQUE (id, live)
);

CREATE TABLE risk_events (
  id              text PRIMARY KEY,
  "riskUnitId"    text NOT NULL,
  "riskEventName" text NOT NULL,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  UNIQUE (id, live),
  CONSTRAINT "risk_events_riskUnitId_ref" FOREIGN KEY ("riskUnitId", live) REFERENCES risk_unit (id, live)
);
CREATE INDEX risk_events_parent ON risk_events ("riskUnitId") WHERE live;

CREATE TABLE risk_measures (
  id                    text PRIMARY KEY,
  "riskEventId"         text NOT NULL,
  "riskMeasureDesc"     text NOT NULL,
  "troubleshootContent" text NOT NULL,
  "dataSrc"             text,
  classify1             text,
  classify2             text,
  classify3             text,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  UNIQUE (id, live),
  CONSTRAINT "risk_measures_riskEventId_ref" FOREIGN KEY ("riskEventId", live) REFERENCES risk_events (id, live)
);
CREATE INDEX risk_measures_parent ON risk_measures ("riskEventId") WHERE live;

CREATE TABLE troubleshoot_task (
  id                    text PRIMARY KEY,
  "riskMeasureId"       text NOT NULL,
  "troubleshootContent" text NOT NULL,
  "checkCycle"          integer NOT NULL,
  "checkCycleUnit"      text NOT NULL,
  "taskStartTime"       timestamptz(3),
  "workStartTime"       text,
  "workEndTime"         text,
  "workDayType"         text,
  "workType"            text,
  "taskNum"             text,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  UNIQUE (id, live),
  CONSTRAINT "troubleshoot_task_riskMeasureId_ref" FOREIGN KEY ("riskMeasureId", live) REFERENCES risk_measures (id, live)
);
CREATE INDEX troubleshoot_task_parent ON troubleshoot_task ("riskMeasureId") WHERE live;

CREATE TABLE troubleshoot_record (
  id                  text PRIMARY KEY,
  "checkTaskId"       text NOT NULL,
  "checkTime"         timestamptz(3) NOT NULL,
  "checkStatus"       text,
  "checkPerson"       text,
  "checkPersonMobile" text,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  UNIQUE (id, live),
  CONSTRAINT "troubleshoot_record_checkTaskId_ref" FOREIGN KEY ("checkTaskId", live) REFERENCES troubleshoot_task (id, live)
);
CREATE INDEX troubleshoot_record_parent ON troubleshoot_record ("checkTaskId") WHERE live;

CREATE TABLE troubleshoot_info (
  id                     text PRIMARY KEY,
  "hazardCode"           text NOT NULL,
  "riskMeasureId"        text,
  "checkRecordId"        text,
  "dangerName"           text NOT NULL,
  "dangerLevel"          text NOT NULL,
  "registTime"           timestamptz(3) NOT NULL,
  registrant             text NOT NULL,
  "dangerSrc"            text NOT NULL,
  "dangerManageType"     text NOT NULL,
  "hazardDangerType"     text NOT NULL,
  "hazardCategory"       text,
  "dangerDesc"           text NOT NULL,
  "dangerReason"         text,
  "controlMeasures"      text,
  "checkAcceptComment"   text,
  cost                   text,
  "liablePerson"         text NOT NULL,
  "dangerManageDeadline" date NOT NULL,
  "dangerState"          text NOT NULL,
  "checkAcceptPerson"    text,
  "checkAcceptTime"      date,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  CONSTRAINT "troubleshoot_info_riskMeasureId_ref" FOREIGN KEY ("riskMeasureId", live) REFERENCES risk_measures (id, live),
  CONSTRAINT "troubleshoot_info_checkRecordId_ref" FOREIGN KEY ("checkRecordId", live) REFERENCES troubleshoot_record (id, live)
);
CREATE INDEX troubleshoot_info_measure ON troubleshoot_info ("riskMeasureId") WHERE live;
CREATE INDEX troubleshoot_info_record ON troubleshoot_info ("checkRecordId") WHERE live;

CREATE TABLE ticket_base_info (
  id                   text PRIMARY KEY,
  "ticketNo"           text NOT NULL,
  "workType"           text NOT NULL,
  "workLevel"          text,
  "ticketStatus"       text NOT NULL,
  "planStartTime"      timestamptz(3) NOT NULL,
  "planEndTime"        timestamptz(3) NOT NULL,
  "startTime"          timestamptz(3),
  "endTime"            timestamptz(3),
  "issueTime"          timestamptz(3),
  "ticketPosition"     text NOT NULL,
  "ticketContent"      text NOT NULL,
  "workDept"           text NOT NULL,
  "workerName"         text NOT NULL,
  "supervisorName"     text NOT NULL,
  "isContractorWork"   text,
  "contractorOrg"      text,
  "riskIdentification" text,
  longitude            double precision,
  latitude             double precision,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3)
);
CREATE UNIQUE INDEX ticket_base_info_no_live ON ticket_base_info ("ticketNo") WHERE live;

CREATE TABLE train_base_info (
  id                 text PRIMARY KEY,
  "trainName"        text NOT NULL,
  "trainType"        text NOT NULL,
  "trainMode"        text,
  "trainStartTime"   timestamptz(3) NOT NULL,
  "trainEndTime"     timestamptz(3) NOT NULL,
  "trainHours"       integer NOT NULL,
  organizer          text NOT NULL,
  trainer            text NOT NULL,
  location           text,
  "participantCount" integer NOT NULL,
  "passCount"        integer,
  "participantNames" text,
  cost               text,
  summary            text,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3)
);

-- Reads page by updateTime desc, id among live records; the push looks for pending ones.
CREATE INDEX monitor_equip_page ON monitor_equip ("updateTime" DESC, id) WHERE live;
CREATE INDEX risk_unit_page ON risk_unit ("updateTime" DESC, id) WHERE live;
CREATE INDEX risk_events_page ON risk_events ("updateTime" DESC, id) WHERE live;
CREATE INDEX risk_measures_page ON risk_measures ("updateTime" DESC, id) WHERE live;
CREATE INDEX troubleshoot_task_page ON troubleshoot_task ("updateTime" DESC, id) WHERE live;
CREATE INDEX troubleshoot_record_page ON troubleshoot_record ("updateTime" DESC, id) WHERE live;
CREATE INDEX troubleshoot_info_page ON troubleshoot_info ("updateTime" DESC, id) WHERE live;
CREATE INDEX ticket_base_info_page ON ticket_base_info ("updateTime" DESC, id) WHERE live;
CREATE INDEX train_base_info_page ON train_base_info ("updateTime" DESC, id) WHERE live;
CREATE INDEX monitor_equip_pending ON monitor_equip (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX risk_unit_pending ON risk_unit (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX risk_events_pending ON risk_events (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX risk_measures_pending ON risk_measures (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX troubleshoot_task_pending ON troubleshoot_task (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX troubleshoot_record_pending ON troubleshoot_record (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX troubleshoot_info_pending ON troubleshoot_info (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX ticket_base_info_pending ON ticket_base_info (sync_status) WHERE sync_status <> 'synced';
CREATE INDEX train_base_info_pending ON train_base_info (sync_status) WHERE sync_status <> 'synced';
