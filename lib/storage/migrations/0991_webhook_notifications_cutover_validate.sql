-- Step two (docs/adr/0042): validates the cut-over CHECK of 0990 in its own
-- transaction, under SHARE UPDATE EXCLUSIVE (the fan-out's inserts go on), so
-- that attaching the table as a partition (0992) needs no scan under an
-- exclusive lock. Sequence ids are far below the first day-prefixed id; an id
-- at or past it (never made by this service) moves the cut-over past it.
DO $$
DECLARE
  newest bigint;
  cut bigint;
BEGIN
  BEGIN
    ALTER TABLE webhook_notifications VALIDATE CONSTRAINT webhook_notifications_before_cutover;
  EXCEPTION WHEN check_violation THEN
    newest := (SELECT max(id) FROM webhook_notifications);
    cut := ((newest >> 32) + 1) * 86400;
    UPDATE day_partition_layouts SET legacy_before = cut WHERE parent = 'webhook_notifications';
    ALTER TABLE webhook_notifications DROP CONSTRAINT webhook_notifications_before_cutover;
    EXECUTE format('ALTER TABLE webhook_notifications ADD CONSTRAINT webhook_notifications_before_cutover CHECK (id < %s)', (cut / 86400) << 32);
  END;
END $$;
