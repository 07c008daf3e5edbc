-- Resending webhook deliveries is bounded (docs/adr/0411-replays-bounded.md,
-- docs/contract.md §16.4). `resent_at`: when a retry or a replay last queued
-- the delivery again; a replay of succeeded deliveries skips those resent in
-- the last hour. A column without a default is a catalog change on every day
-- table.
ALTER TABLE webhook_notifications ADD COLUMN resent_at timestamptz;

-- One row per account: the deliveries its retries and replays queued in the
-- current UTC hour (`window_start`, Unix seconds), at most 10,000. The row is
-- taken FOR UPDATE by each retry or replay, so an account's resends count in
-- turn; a new hour starts it at 0 again.
CREATE TABLE webhook_resend_windows (
  account_id uuid PRIMARY KEY,
  window_start bigint NOT NULL,
  queued integer NOT NULL
);
