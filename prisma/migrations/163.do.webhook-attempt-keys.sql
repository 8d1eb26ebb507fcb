-- An attempt is recorded for every delivery, in the statement that settles it: its foreign keys
-- checked each row against its delivery and endpoint (locking both rows) and cost about as much as
-- the attempt itself. They go; the statements that delete deliveries delete their attempts with
-- them (an endpoint's deletion, retention).
ALTER TABLE webhook_attempt DROP CONSTRAINT webhook_attempt_endpoint_fkey;
ALTER TABLE webhook_attempt DROP CONSTRAINT webhook_attempt_delivery_fkey;
