-- Idempotency-Key: the first answer to a write, kept per user and key for replay.
-- The key row is written in the same transaction as the write it answers, so a concurrent request
-- with the same key waits for that transaction and then replays its answer, and a write that
-- failed (rolled back) leaves no key behind.
CREATE TABLE idempotency_key (
  "userName"    text NOT NULL,
  key           text NOT NULL,
  "operationId" text NOT NULL,
  "bodyHash"    text NOT NULL,
  response      jsonb,
  "createTime"  timestamptz(3) NOT NULL DEFAULT now(),
  "expiresAt"   timestamptz(3) NOT NULL,
  PRIMARY KEY ("userName", key)
);
CREATE INDEX idempotency_key_expires ON idempotency_key ("expiresAt");
