-- Step one of partitioning received inbound mail by day (docs/adr/0041), as
-- the sandbox captures were (migrations 0970–0972): the cut-over. Messages
-- received before `legacy_before` (the next UTC midnight at least an hour
-- away) stay in today's table, which becomes one partition of the new one
-- (migration 0982). The CHECK is added NOT VALID (no scan, a moment's lock)
-- and validated by the next migration in its own transaction.
DO $$
DECLARE
  now_s bigint := extract(epoch FROM clock_timestamp())::bigint + 3600;
  cut bigint := now_s - now_s % 86400 + 86400;
BEGIN
  INSERT INTO day_partition_layouts (parent, legacy_before) VALUES ('inbound_messages', cut);
  EXECUTE format('ALTER TABLE inbound_messages ADD CONSTRAINT inbound_messages_before_cutover CHECK (received_at < %L::timestamptz) NOT VALID',
                 to_timestamp(cut));
END $$;
