-- Step two (docs/adr/0030): validates the cut-over CHECK of 0950 in its own
-- transaction. VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which
-- lets inserts and reads go on, so that attaching the table as a partition
-- (0952) needs no scan under an exclusive lock.
-- An event already logged at or after the cut-over (a clock that was ahead)
-- moves the cut-over to the midnight after the newest event instead.
DO $$
DECLARE
  newest bigint;
  cut bigint;
BEGIN
  BEGIN
    ALTER TABLE events VALIDATE CONSTRAINT events_before_cutover;
  EXCEPTION WHEN check_violation THEN
    newest := (SELECT max(logged_at) FROM events);
    cut := newest - newest % 86400 + 86400;
    UPDATE event_log_layout SET legacy_before = cut;
    ALTER TABLE events DROP CONSTRAINT events_before_cutover;
    EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_before_cutover CHECK (logged_at < %s)', cut);
  END;
END $$;
