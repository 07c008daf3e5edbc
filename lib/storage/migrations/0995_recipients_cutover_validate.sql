-- Step two (docs/adr/0043): validates the cut-over CHECKs of 0994 in their own
-- transaction, under SHARE UPDATE EXCLUSIVE (acceptance and delivery write
-- on), so that attaching the tables as partitions (0996, 0998) reads no row
-- under an exclusive lock. Sequence ids are far below the first day-prefixed
-- id; an id at or past it (never made by this service) moves the cut-over of
-- all three tables past it, so that they keep one set of day bounds.
DO $$
DECLARE
  newest bigint;
  cut bigint;
BEGIN
  BEGIN
    ALTER TABLE message_recipients VALIDATE CONSTRAINT message_recipients_before_cutover;
    ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_before_cutover;
    ALTER TABLE engagement_windows VALIDATE CONSTRAINT engagement_windows_before_cutover;
  EXCEPTION WHEN check_violation THEN
    newest := greatest((SELECT max(id) FROM message_recipients), (SELECT max(recipient_id) FROM delivery_attempts),
                       (SELECT max(recipient_id) FROM engagement_windows));
    cut := ((newest >> 32) + 1) * 86400;
    UPDATE day_partition_layouts SET legacy_before = cut WHERE parent IN ('message_recipients', 'delivery_attempts', 'engagement_windows');
    ALTER TABLE message_recipients DROP CONSTRAINT message_recipients_before_cutover;
    ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_before_cutover;
    ALTER TABLE engagement_windows DROP CONSTRAINT engagement_windows_before_cutover;
    EXECUTE format('ALTER TABLE message_recipients ADD CONSTRAINT message_recipients_before_cutover CHECK (id < %s)', (cut / 86400) << 32);
    EXECUTE format('ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_before_cutover CHECK (recipient_id < %s)', (cut / 86400) << 32);
    EXECUTE format('ALTER TABLE engagement_windows ADD CONSTRAINT engagement_windows_before_cutover CHECK (recipient_id < %s)', (cut / 86400) << 32);
  END;
END $$;
