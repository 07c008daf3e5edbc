-- Webhook delivery history is purged with the account's retention period
-- (lib/webhooks/retention.ts): finished notifications by completion time.
CREATE INDEX webhook_notifications_completed ON webhook_notifications (completed_at) WHERE status <> 'pending';
