-- Step two (docs/adr/0041): validates the cut-over CHECK of 0980 in its own
-- transaction, under SHARE UPDATE EXCLUSIVE (the inbound SMTP server's inserts
-- go on), so that attaching the table as a partition (0982) needs no scan
-- under an exclusive lock. A message already received at or after the
-- cut-over (a clock that was ahead) moves the cut-over to the midnight after
-- the newest message instead.
DO $$
DECLARE
  newest bigint;
  cut bigint;
BEGIN
  BEGIN
    ALTER TABLE inbound_messages VALIDATE CONSTRAINT inbound_messages_before_cutover;
  EXCEPTION WHEN check_violation THEN
    newest := (SELECT floor(extract(epoch FROM max(received_at)))::bigint FROM inbound_messages);
    cut := newest - newest % 86400 + 86400;
    UPDATE day_partition_layouts SET legacy_before = cut WHERE parent = 'inbound_messages';
    ALTER TABLE inbound_messages DROP CONSTRAINT inbound_messages_before_cutover;
    EXECUTE format('ALTER TABLE inbound_messages ADD CONSTRAINT inbound_messages_before_cutover CHECK (received_at < %L::timestamptz)',
                   to_timestamp(cut));
  END;
END $$;
