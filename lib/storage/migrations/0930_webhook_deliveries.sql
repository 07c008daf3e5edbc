-- Webhook deliveries, replay and endpoints that keep failing (docs/contract.md §16,
-- docs/adr/0410-webhook-deliveries-replay-and-disabling.md).
--
-- A notification of a disabled webhook is `held`: kept, not sent, with
-- completed_at set when it was held so that the retention purge
-- (lib/webhooks/retention.ts) drops it after the account's retention period;
-- re-enabling turns it back to `pending`.
ALTER TABLE webhook_notifications DROP CONSTRAINT webhook_notifications_status_check;
ALTER TABLE webhook_notifications ADD CONSTRAINT webhook_notifications_status_check
  CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled', 'held'));
-- A delivery sent again by hand (retry, replay) gets one attempt, not a new schedule.
ALTER TABLE webhook_notifications ADD COLUMN single_attempt boolean NOT NULL DEFAULT false;
-- GET /webhooks/{id}/deliveries: one webhook's deliveries by status, newest first.
CREATE INDEX webhook_notifications_webhook_status ON webhook_notifications (webhook_id, status, id DESC);

-- One delivery's attempts (GET /webhooks/{id}/deliveries/{DeliveryID}).
CREATE INDEX webhook_attempts_notification ON webhook_attempts (notification_id, id);

-- failing_since: the first failed attempt since the last success (NULL while
-- the endpoint answers 2xx); disabled_*: why and when it was disabled.
ALTER TABLE webhooks ADD COLUMN failing_since timestamptz;
ALTER TABLE webhooks ADD COLUMN disabled_at timestamptz;
ALTER TABLE webhooks ADD COLUMN disabled_reason text NOT NULL DEFAULT '';
