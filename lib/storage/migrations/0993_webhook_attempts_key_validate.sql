-- The attempts' foreign key to the partitioned notifications (0992),
-- validated in its own transaction: a scan of webhook_attempts under SHARE
-- UPDATE EXCLUSIVE, which lets the dispatcher's inserts go on (docs/adr/0042).
ALTER TABLE webhook_attempts VALIDATE CONSTRAINT webhook_attempts_notification_id_fkey;
