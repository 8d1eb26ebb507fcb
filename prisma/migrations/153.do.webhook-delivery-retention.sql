-- Retention of the webhooks' deliveries (docs/events.md): the finished ones of events no longer kept,
-- and of pings (no seq) older than EVENT_RETENTION_DAYS, are pruned with their attempts. This index
-- finds them by seq (a ping's NULL included) without reading the deliveries still under way.
CREATE INDEX webhook_delivery_finished ON webhook_delivery (seq) WHERE state IN ('delivered', 'failed');
