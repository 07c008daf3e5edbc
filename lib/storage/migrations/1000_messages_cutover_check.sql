-- Step one of partitioning messages by day on created_at (docs/adr/0044), as
-- received inbound mail was (migrations 0980–0982): the cut-over. Messages
-- accepted before `legacy_before` (the next UTC midnight at least an hour
-- away) stay in today's table, which becomes one partition of the new one
-- (migration 1002). The CHECK is added NOT VALID (no scan, a moment's lock)
-- and validated by the next migration in its own transaction.
DO $$
DECLARE
  now_s bigint := extract(epoch FROM clock_timestamp())::bigint + 3600;
  cut bigint := now_s - now_s % 86400 + 86400;
BEGIN
  INSERT INTO day_partition_layouts (parent, legacy_before) VALUES ('messages', cut);
  EXECUTE format('ALTER TABLE messages ADD CONSTRAINT messages_before_cutover CHECK (created_at < %L::timestamptz) NOT VALID',
                 to_timestamp(cut));
END $$;
