-- The minutes of readings the park has yet to receive (see docs/push-protocol.md): the push sends
-- the park one aggregate per point and minute, not the readings. A batch of readings notes each
-- (point, minute) it stored in its own transaction; a late reading notes its minute again. `change`
-- grows at every note, so the push forgets a minute only when the park answered for the aggregate
-- of that very note: a minute changed while its aggregate was on the way is pushed again.
-- minute: the minute's start in reading seconds (monitor_reading.time).
CREATE SEQUENCE monitor_minute_change;
CREATE TABLE monitor_minute_changed (
  point   integer NOT NULL,
  minute  integer NOT NULL,
  change  bigint NOT NULL DEFAULT nextval('monitor_minute_change'),
  PRIMARY KEY (point, minute)
);
-- The push takes the oldest notes first.
CREATE INDEX monitor_minute_changed_order ON monitor_minute_changed (change);
