-- Scheduled sends (docs/adr/0125, docs/contract.md §15). A message accepted
-- with a SendAt in the future is stored with `send_at` and schedule_status
-- 'scheduled', and no deliver job: the release loop (lib/delivery/scheduled-release.ts)
-- turns due ones into 'sending' and enqueues their jobs in one transaction.
-- A cancel turns 'scheduled' into 'cancelled'. Both are one guarded UPDATE
-- of this row, so a message is never both cancelled and delivered.
-- NULL: a message sent at once (every message before this migration).
ALTER TABLE messages
  ADD COLUMN send_at timestamptz,
  ADD COLUMN schedule_status text CHECK (schedule_status IN ('scheduled', 'sending', 'cancelled'));
-- The release loop's scan (due first) and the dashboard's list, per account.
CREATE INDEX messages_scheduled_due ON messages (send_at) WHERE schedule_status = 'scheduled';
CREATE INDEX messages_scheduled_account ON messages (account_id, send_at, id) WHERE schedule_status = 'scheduled';
