-- Step one of partitioning the webhook notifications by day (docs/adr/0042):
-- the cut-over. Their ids become day-prefixed (the UTC day number in the
-- high bits, id >> 32, migration 0992), and the table is partitioned on the
-- id itself, so that every statement by id, and by arrays of ids, is pruned
-- to its day's table. The rows of today's table (sequence ids, far below any
-- day-prefixed one) stay in it: it becomes the partition of every id before
-- the first id of the cut-over day. The CHECK is added NOT VALID (no scan, a
-- moment's lock) and validated by the next migration in its own transaction.
DO $$
DECLARE
  now_s bigint := extract(epoch FROM clock_timestamp())::bigint + 3600;
  cut bigint := now_s - now_s % 86400 + 86400;
BEGIN
  INSERT INTO day_partition_layouts (parent, legacy_before, key_kind) VALUES ('webhook_notifications', cut, 'day_id');
  EXECUTE format('ALTER TABLE webhook_notifications ADD CONSTRAINT webhook_notifications_before_cutover CHECK (id < %s) NOT VALID',
                 (cut / 86400) << 32);
END $$;
