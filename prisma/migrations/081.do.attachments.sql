-- Attachments: files attached to a record, one table per resource, apart from the
-- record rows (a record's reads never touch them). Keyed by (companyCode, id) as on the park, where
-- several enterprises push. An attachment names its record by ("recordId", live) -> record (id,
-- live), as children name their parents: PostgreSQL refuses an attachment of a missing or deleted
-- record (1006) and the deletion of a record that live attachments still name (1012). A deleted
-- attachment is a tombstone (live NULL), pushed like records. The bytes are stored EXTERNAL: PNG,
-- JPEG and PDF are compressed already, so PostgreSQL does not try again.

ALTER TABLE monitor_equip ADD CONSTRAINT monitor_equip_id_live UNIQUE (id, live);
ALTER TABLE troubleshoot_info ADD CONSTRAINT troubleshoot_info_id_live UNIQUE (id, live);
ALTER TABLE ticket_base_info ADD CONSTRAINT ticket_base_info_id_live UNIQUE (id, live);
ALTER TABLE train_base_info ADD CONSTRAINT train_base_info_id_live UNIQUE (id, live);

CREATE TABLE monitor_equip_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "monitor_equip_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES monitor_equip (id, live)
);
ALTER TABLE monitor_equip_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX monitor_equip_attachment_record ON monitor_equip_attachment ("recordId") WHERE live;
CREATE INDEX monitor_equip_attachment_unsynced ON monitor_equip_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE risk_unit_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "risk_unit_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES risk_unit (id, live)
);
ALTER TABLE risk_unit_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX risk_unit_attachment_record ON risk_unit_attachment ("recordId") WHERE live;
CREATE INDEX risk_unit_attachment_unsynced ON risk_unit_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE risk_events_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "risk_events_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES risk_events (id, live)
);
ALTER TABLE risk_events_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX risk_events_attachment_record ON risk_events_attachment ("recordId") WHERE live;
CREATE INDEX risk_events_attachment_unsynced ON risk_events_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE risk_measures_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "risk_measures_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES risk_measures (id, live)
);
ALTER TABLE risk_measures_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX risk_measures_attachment_record ON risk_measures_attachment ("recordId") WHERE live;
CREATE INDEX risk_measures_attachment_unsynced ON risk_measures_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE troubleshoot_task_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "troubleshoot_task_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES troubleshoot_task (id, live)
);
ALTER TABLE troubleshoot_task_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX troubleshoot_task_attachment_record ON troubleshoot_task_attachment ("recordId") WHERE live;
CREATE INDEX troubleshoot_task_attachment_unsynced ON troubleshoot_task_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE troubleshoot_record_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "troubleshoot_record_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES troubleshoot_record (id, live)
);
ALTER TABLE troubleshoot_record_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX troubleshoot_record_attachment_record ON troubleshoot_record_attachment ("recordId") WHERE live;
CREATE INDEX troubleshoot_record_attachment_unsynced ON troubleshoot_record_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE troubleshoot_info_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "troubleshoot_info_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES troubleshoot_info (id, live)
);
ALTER TABLE troubleshoot_info_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX troubleshoot_info_attachment_record ON troubleshoot_info_attachment ("recordId") WHERE live;
CREATE INDEX troubleshoot_info_attachment_unsynced ON troubleshoot_info_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE ticket_base_info_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "ticket_base_info_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES ticket_base_info (id, live)
);
ALTER TABLE ticket_base_info_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX ticket_base_info_attachment_record ON ticket_base_info_attachment ("recordId") WHERE live;
CREATE INDEX ticket_base_info_attachment_unsynced ON ticket_base_info_attachment ("updateTime", id) WHERE sync_status <> 'synced';

CREATE TABLE train_base_info_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "train_base_info_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES train_base_info (id, live)
);
ALTER TABLE train_base_info_attachment ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE INDEX train_base_info_attachment_record ON train_base_info_attachment ("recordId") WHERE live;
CREATE INDEX train_base_info_attachment_unsynced ON train_base_info_attachment ("updateTime", id) WHERE sync_status <> 'synced';
