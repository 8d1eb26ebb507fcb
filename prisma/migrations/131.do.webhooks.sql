-- Webhooks (docs/events.md): endpoints, the deliveries of events to them, and each attempt.
--
-- Secrets are kept encrypted (AES-256-GCM under a key derived by HKDF-SHA-256 from the deployment's
-- JWT secret): a dump of this table alone does not give them away. During a rotation the previous
-- secret keeps signing until `previousUntil`.
CREATE TABLE webhook_endpoint (
  id               text PRIMARY KEY,
  url              text NOT NULL,
  types            text[] NOT NULL,
  description      text,
  enabled          boolean NOT NULL DEFAULT true,
  "disabledReason" text,
  secret           bytea NOT NULL,
  "previousSecret" bytea,
  "previousUntil"  timestamptz(3),
  -- Since when every attempt to it failed (none since its last success); 5 days of it disable it.
  "failingSince"   timestamptz(3),
  "createTime"     timestamptz(3) NOT NULL DEFAULT now(),
  "updateTime"     timestamptz(3) NOT NULL DEFAULT now()
);

-- One event (or a ping, or a redelivery) to one endpoint. `waiting`: an earlier event of the same
-- record to the same endpoint is still being delivered (`recordKey`), it goes once that one is
-- delivered or failed; `pending`: a job is queued for its next attempt at `due`.
CREATE TABLE webhook_delivery (
  id          bigserial PRIMARY KEY,
  endpoint    text NOT NULL REFERENCES webhook_endpoint (id) ON DELETE CASCADE,
  "eventId"   uuid NOT NULL,
  type        text NOT NULL,
  -- The event's position in the feed (its body is read from there); a ping has none and carries its body.
  seq         bigint,
  body        jsonb,
  "recordKey" text,
  state       text NOT NULL CHECK (state IN ('waiting', 'pending', 'delivered', 'failed')),
  attempts    integer NOT NULL DEFAULT 0,
  due         timestamptz(3) NOT NULL DEFAULT now(),
  "createTime" timestamptz(3) NOT NULL DEFAULT now()
);
-- The next of a record's deliveries to an endpoint, once the one before it ended.
CREATE INDEX webhook_delivery_waiting ON webhook_delivery (endpoint, "recordKey", seq) WHERE state IN ('waiting', 'pending');

CREATE TABLE webhook_attempt (
  id           bigserial PRIMARY KEY,
  endpoint     text NOT NULL REFERENCES webhook_endpoint (id) ON DELETE CASCADE,
  delivery     bigint NOT NULL REFERENCES webhook_delivery (id) ON DELETE CASCADE,
  "eventId"    uuid NOT NULL,
  type         text NOT NULL,
  attempt      integer NOT NULL,
  time         timestamptz(3) NOT NULL,
  status       integer,
  "durationMs" integer NOT NULL,
  outcome      text NOT NULL CHECK (outcome IN ('delivered', 'pending', 'failed')),
  error        text
);
CREATE INDEX webhook_attempt_newest ON webhook_attempt (endpoint, id DESC);
CREATE INDEX webhook_attempt_delivery ON webhook_attempt (delivery);
