-- `danger.overdue` and `ticket.overdue` events (docs/events.md): the overdue timer records one per
-- record and deadline, in the transaction that adds the record's notice here. A record whose
-- deadline is moved and passes again is overdue again (a new deadline, a new notice); one that
-- stops being overdue and becomes so again under the same deadline (a state set back) is not
-- announced twice. Notices go with their record's deletion only in that they are never looked at
-- again; they are kept small (one row per overdue record and deadline).
CREATE TABLE overdue_notice (
  resource      text NOT NULL,
  "companyCode" text NOT NULL,
  id            text NOT NULL,
  deadline      text NOT NULL,
  "time"        timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (resource, "companyCode", id, deadline)
);
