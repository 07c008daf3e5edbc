-- Step two (docs/adr/0040): validates the cut-over CHECK of 0970 in its own
-- transaction. VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which
-- lets the sandbox MX's inserts go on, so that attaching the table as a
-- partition (0972) needs no scan under an exclusive lock. A capture already
-- received at or after the cut-over (a clock that was ahead) moves the
-- cut-over to the midnight after the newest capture instead.
DO $$
DECLARE
  newest bigint;
  cut bigint;
BEGIN
  BEGIN
    ALTER TABLE sandbox_messages VALIDATE CONSTRAINT sandbox_messages_before_cutover;
  EXCEPTION WHEN check_violation THEN
    newest := (SELECT floor(extract(epoch FROM max(received_at)))::bigint FROM sandbox_messages);
    cut := newest - newest % 86400 + 86400;
    UPDATE day_partition_layouts SET legacy_before = cut WHERE parent = 'sandbox_messages';
    ALTER TABLE sandbox_messages DROP CONSTRAINT sandbox_messages_before_cutover;
    EXECUTE format('ALTER TABLE sandbox_messages ADD CONSTRAINT sandbox_messages_before_cutover CHECK (received_at < %L::timestamptz)',
                   to_timestamp(cut));
  END;
END $$;
