-- Step two (docs/adr/0044): validates the cut-over CHECK of 1000 in its own
-- transaction, under SHARE UPDATE EXCLUSIVE (acceptance's inserts go on), so
-- that attaching the table as a partition (1002) needs no scan under an
-- exclusive lock. A message already accepted at or after the cut-over (a
-- clock that was ahead) moves the cut-over to the midnight after the newest
-- message instead.
DO $$
DECLARE
  newest bigint;
  cut bigint;
BEGIN
  BEGIN
    ALTER TABLE messages VALIDATE CONSTRAINT messages_before_cutover;
  EXCEPTION WHEN check_violation THEN
    newest := (SELECT floor(extract(epoch FROM max(created_at)))::bigint FROM messages);
    cut := newest - newest % 86400 + 86400;
    UPDATE day_partition_layouts SET legacy_before = cut WHERE parent = 'messages';
    ALTER TABLE messages DROP CONSTRAINT messages_before_cutover;
    EXECUTE format('ALTER TABLE messages ADD CONSTRAINT messages_before_cutover CHECK (created_at < %L::timestamptz)',
                   to_timestamp(cut));
  END;
END $$;
