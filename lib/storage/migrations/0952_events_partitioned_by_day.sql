-- The event log partitioned by UTC day on logged_at (docs/adr/0030, 0031, 0032).
-- Catalog changes only: the table of 0001 is renamed events_legacy and
-- attached as the partition of everything before the cut-over (its CHECK,
-- validated by 0951, proves the bound, so the attach reads no row; an empty
-- one is dropped); its identical indexes are adopted, not rebuilt. New events go to one table per
-- day (events_pYYYYMMDD), made ahead by event_partitions_ensure (here, and
-- hourly by the maintenance job, lib/maintenance/event-partitions.ts);
-- events_default catches an event whose day has no table yet (a clock that
-- jumped), and the next ensure moves such rows into their day's table.
--
-- No primary key: a key of a partitioned table must contain logged_at, no
-- foreign key or ON CONFLICT names events, and ids come from one sequence.
ALTER TABLE events RENAME TO events_legacy;
ALTER INDEX events_pkey RENAME TO events_legacy_pkey;
ALTER INDEX events_account_time RENAME TO events_legacy_account_time;
ALTER INDEX events_account_type_time RENAME TO events_legacy_account_type_time;
ALTER INDEX events_account_message_time RENAME TO events_legacy_account_message_time;
-- Inserts through the parent fire the parent's trigger (below); the table's own copy would never fire.
DROP TRIGGER events_invalidate_rollup ON events_legacy;

CREATE TABLE events (
  id bigint NOT NULL DEFAULT nextval('events_id_seq'),
  account_id uuid NOT NULL,
  message_id uuid NOT NULL,
  type text NOT NULL,
  logged_at bigint NOT NULL,
  log_level text NOT NULL DEFAULT 'info',
  recipient text NOT NULL DEFAULT '',
  reason text NOT NULL DEFAULT '',
  ip text,
  geo_city text,
  geo_region text,
  geo_country text,
  url text,
  details jsonb,
  CONSTRAINT events_type_check
    CHECK (type IN ('accepted', 'rejected', 'failed', 'delivered', 'opened', 'clicked', 'unsubscribed', 'complained'))
) PARTITION BY RANGE (logged_at);
-- The sequence outlives the legacy partition (retention drops it one day).
ALTER SEQUENCE events_id_seq OWNED BY events.id;

-- The indexes of 0001, per partition: one per GET /events query shape.
CREATE INDEX events_account_time ON events (account_id, logged_at DESC, id DESC);
CREATE INDEX events_account_type_time ON events (account_id, type, logged_at DESC, id DESC);
CREATE INDEX events_account_message_time ON events (account_id, message_id, logged_at DESC, id DESC);

CREATE TRIGGER events_invalidate_rollup
  AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_invalidate_rollup();

-- An empty table (a new installation) is dropped instead: every day then gets a table of its own.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM events_legacy LIMIT 1) THEN
    EXECUTE format('ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO (%s)',
                   (SELECT legacy_before FROM event_log_layout));
  ELSE
    DROP TABLE events_legacy;
    UPDATE event_log_layout SET legacy_before = 0;
  END IF;
END $$;

-- Each partition's indexes are named <partition>_account_time and so on (the
-- legacy ones already are), so that a plan names the shape it serves.
CREATE FUNCTION event_partition_indexes(part text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE INDEX %I ON %I (account_id, logged_at DESC, id DESC)', part || '_account_time', part);
  EXECUTE format('CREATE INDEX %I ON %I (account_id, type, logged_at DESC, id DESC)', part || '_account_type_time', part);
  EXECUTE format('CREATE INDEX %I ON %I (account_id, message_id, logged_at DESC, id DESC)', part || '_account_message_time', part);
END $$;

CREATE TABLE events_default (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
SELECT event_partition_indexes('events_default');
ALTER TABLE events ATTACH PARTITION events_default DEFAULT;

-- Makes the day tables of [from_time, to_time) that do not exist (days before
-- the cut-over belong to events_legacy), moving in any rows events_default
-- holds for them. CREATE … LIKE then ATTACH: the attach takes SHARE UPDATE
-- EXCLUSIVE on events (inserts go on) where CREATE … PARTITION OF would take
-- ACCESS EXCLUSIVE. Returns how many tables it made.
CREATE FUNCTION event_partitions_ensure(from_time bigint, to_time bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  d bigint := greatest(from_time - from_time % 86400, (SELECT legacy_before FROM event_log_layout));
  part text;
  made integer := 0;
BEGIN
  WHILE d < to_time LOOP
    part := 'events_p' || to_char(to_timestamp(d) AT TIME ZONE 'UTC', 'YYYYMMDD');
    IF to_regclass(part) IS NULL THEN
      EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
      EXECUTE format('WITH moved AS (DELETE FROM events_default WHERE logged_at >= %s AND logged_at < %s RETURNING *) INSERT INTO %I SELECT * FROM moved',
                     d, d + 86400, part);
      PERFORM event_partition_indexes(part);
      EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', part, d, d + 86400);
      made := made + 1;
    END IF;
    d := d + 86400;
  END LOOP;
  RETURN made;
END $$;

-- Two days behind (late events of a fresh install) to eight ahead.
SELECT event_partitions_ensure(extract(epoch FROM now())::bigint - 2 * 86400, extract(epoch FROM now())::bigint + 8 * 86400);
