-- Step one of partitioning the sandbox captures by day (docs/adr/0040), as the
-- event log was (migrations 0950–0952): the cut-over. Captures received before
-- `legacy_before` (the next UTC midnight at least an hour away) stay in
-- today's table, which becomes one partition of the new one (migration 0972).
-- The CHECK is added NOT VALID (no scan, a moment's lock) and validated by the
-- next migration in its own transaction, under a lock that lets writes go on.
--
-- day_partition_layouts is the cut-over of every table partitioned by the
-- generic day functions of 0972, one row per table.
CREATE TABLE day_partition_layouts (
  parent text PRIMARY KEY,
  -- <parent>_legacy holds exactly the rows before this (Unix seconds, a UTC
  -- midnight); 0 when there is none (an empty one is dropped).
  legacy_before bigint NOT NULL,
  -- What the partition key is: 'time' (a timestamptz, or Unix seconds), or
  -- 'day_id' (a bigint id whose high bits are its UTC day number, id >> 32,
  -- so that a statement by id is pruned to its day's table; docs/adr/0042).
  key_kind text NOT NULL DEFAULT 'time' CHECK (key_kind IN ('time', 'day_id'))
);

DO $$
DECLARE
  now_s bigint := extract(epoch FROM clock_timestamp())::bigint + 3600;
  cut bigint := now_s - now_s % 86400 + 86400;
BEGIN
  INSERT INTO day_partition_layouts (parent, legacy_before) VALUES ('sandbox_messages', cut);
  -- A constant bound (not an expression), so that the attach of 0972 can prove the partition's range from it.
  EXECUTE format('ALTER TABLE sandbox_messages ADD CONSTRAINT sandbox_messages_before_cutover CHECK (received_at < %L::timestamptz) NOT VALID',
                 to_timestamp(cut));
END $$;
