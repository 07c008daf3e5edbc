-- Step one of partitioning the event log by day (docs/adr/0030): the cut-over.
-- Events logged before `legacy_before` (the next UTC midnight at least an
-- hour away) stay in today's table, which becomes one partition of the new
-- one (migration 0952); from that midnight on, events go to day partitions.
-- The CHECK is added NOT VALID (no scan, a moment's lock) and validated by
-- the next migration in its own transaction, under a lock that lets writes go on.
CREATE TABLE event_log_layout (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  -- events_legacy holds exactly the events logged before this (Unix seconds, a UTC
  -- midnight); 0 when there is none (migration 0952 drops an empty one).
  legacy_before bigint NOT NULL
);

DO $$
DECLARE
  now_s bigint := extract(epoch FROM clock_timestamp())::bigint + 3600;
  cut bigint := now_s - now_s % 86400 + 86400;
BEGIN
  INSERT INTO event_log_layout (legacy_before) VALUES (cut);
  EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_before_cutover CHECK (logged_at < %s) NOT VALID', cut);
END $$;
