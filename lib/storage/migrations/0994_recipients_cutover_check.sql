-- Step one of partitioning a message's recipients and their tracking rows by
-- day (docs/adr/0043): the cut-over. Recipient ids become day-prefixed (the
-- UTC day number in the high bits, id >> 32, migration 0996), and
-- message_recipients is partitioned on its id, delivery_attempts and
-- engagement_windows on their recipient_id, with the same day bounds: a
-- recipient's attempts and windows live in its day's tables. Today's rows
-- (sequence ids, far below any day-prefixed one) stay in today's tables, each
-- becoming the partition of every id before the first id of the cut-over day.
-- The CHECKs are added NOT VALID (no scan, a moment's lock) and validated by
-- the next migration in its own transaction.
DO $$
DECLARE
  now_s bigint := extract(epoch FROM clock_timestamp())::bigint + 3600;
  cut bigint := now_s - now_s % 86400 + 86400;
  first_id bigint := (cut / 86400) << 32;
BEGIN
  INSERT INTO day_partition_layouts (parent, legacy_before, key_kind) VALUES
    ('message_recipients', cut, 'day_id'), ('delivery_attempts', cut, 'day_id'), ('engagement_windows', cut, 'day_id');
  EXECUTE format('ALTER TABLE message_recipients ADD CONSTRAINT message_recipients_before_cutover CHECK (id < %s) NOT VALID', first_id);
  EXECUTE format('ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_before_cutover CHECK (recipient_id < %s) NOT VALID', first_id);
  EXECUTE format('ALTER TABLE engagement_windows ADD CONSTRAINT engagement_windows_before_cutover CHECK (recipient_id < %s) NOT VALID', first_id);
END $$;
