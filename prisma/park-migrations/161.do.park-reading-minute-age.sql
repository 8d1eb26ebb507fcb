-- Pushed minutes past READINGS_RETENTION_DAYS are deleted by an hourly job, found by their minute.
-- Minutes arrive roughly in time order, so a BRIN index finds the old ones at little cost to each push.
CREATE INDEX park_reading_minute_age ON park_reading_minute USING brin (minute);
