-- Events out (docs/events.md): every business write that adds a history entry (an enterprise's add
-- too), and a record's push ending failed, is an event, numbered by `seq` without gaps in the order
-- the events become readable.
--
-- A write only appends its events to `event_inbox`, in its own statement and transaction: no
-- number is taken then (a sequence leaves gaps when a transaction rolls back; a counter row locked
-- by each write until its commit would make every write wait for the others' commits). One
-- sequencer at a time (a transaction-level advisory lock, whichever instance runs it) moves the
-- committed events of the inbox into `event`, numbering them after `event_counter.last` in their
-- arrival order; readers read `event` only. An event that commits after a reader's page is numbered
-- after every event that page could hold, so a reader following by `seq` never skips one. Two
-- events of one record keep their order: the second write waits for the first's commit (the row
-- lock) before it appends.
CREATE TABLE event_inbox (
  arrival       bigserial NOT NULL,
  type          text NOT NULL,
  time          timestamptz(3) NOT NULL,
  "companyCode" text NOT NULL,
  data          jsonb NOT NULL
);
-- No B-tree: the inbox holds the few events not yet numbered, and every write adds one; a BRIN
-- index (next to free to maintain) keeps a large backlog's batches from reading it whole.
CREATE INDEX event_inbox_arrival ON event_inbox USING brin (arrival);

CREATE TABLE event (
  seq           bigint PRIMARY KEY,
  id            uuid NOT NULL,
  type          text NOT NULL,
  time          timestamptz(3) NOT NULL,
  "companyCode" text NOT NULL,
  data          jsonb NOT NULL
);
-- A feed read of some types walks each type's events from `after` (never the other types').
CREATE INDEX event_type_seq ON event (type, seq);
-- Retention prunes by age: events arrive in time order, a BRIN index costs next to nothing.
CREATE INDEX event_time ON event USING brin (time);

-- The last seq given (kept when old events are pruned).
CREATE TABLE event_counter (
  single boolean PRIMARY KEY DEFAULT true CHECK (single),
  last   bigint NOT NULL
);
INSERT INTO event_counter (single, last) VALUES (true, 0);
