-- Sandbox captures partitioned by UTC day on received_at (docs/adr/0040), and
-- the generic day-partition functions that any table growing with volume can
-- use: a parent partitioned by RANGE on one time column (Unix seconds or
-- timestamptz) or on a day-prefixed id (key_kind 'day_id'), its day tables <parent>_pYYYYMMDD, <parent>_default for a row
-- whose day has no table yet, <parent>_legacy for the rows before the
-- cut-over (day_partition_layouts), and an optional function
-- <parent>_partition_indexes(part) for the indexes that cannot live on the
-- parent. Catalog changes only for the table: the one of 0001 is renamed
-- sandbox_messages_legacy and attached (its CHECK, validated by 0971, proves
-- the bound, so the attach reads no row; an empty one is dropped); its
-- identical indexes are adopted, not rebuilt.

-- The partition key of a partitioned table, and whether it is a timestamptz (else Unix seconds).
CREATE FUNCTION day_partition_key(parent text, OUT col text, OUT is_time boolean)
LANGUAGE sql STABLE AS $$
  SELECT a.attname::text, a.atttypid = 'timestamptz'::regtype
    FROM pg_partitioned_table p JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
   WHERE p.partrelid = parent::regclass
$$;

-- A Unix time (a UTC midnight) as a bound or constant of a table's key: a
-- timestamptz literal, the number of seconds, or the first id of that day.
CREATE FUNCTION day_partition_bound(parent text, t bigint) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
           WHEN (SELECT l.key_kind FROM day_partition_layouts l WHERE l.parent = day_partition_bound.parent) = 'day_id'
             THEN ((t / 86400) << 32)::text
           WHEN k.is_time THEN quote_literal(to_timestamp(t) AT TIME ZONE 'UTC') || '::timestamp AT TIME ZONE ''UTC'''
           ELSE t::text
         END
    FROM day_partition_key(parent) k
$$;

-- The Unix time of a key's value, as SQL over that key's column.
CREATE FUNCTION day_partition_epoch_sql(parent text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
           WHEN (SELECT l.key_kind FROM day_partition_layouts l WHERE l.parent = day_partition_epoch_sql.parent) = 'day_id'
             THEN format('((%I >> 32) * 86400)', k.col)
           WHEN k.is_time THEN format('floor(extract(epoch FROM %I))::bigint', k.col)
           ELSE quote_ident(k.col)
         END
    FROM day_partition_key(parent) k
$$;

-- Makes the day tables of [from_time, to_time) that do not exist (days before
-- the cut-over belong to the legacy table), moving in any rows the default
-- partition holds for them. CREATE … LIKE then ATTACH: the attach takes SHARE
-- UPDATE EXCLUSIVE on the parent (inserts go on) where CREATE … PARTITION OF
-- would take ACCESS EXCLUSIVE. Returns how many tables it made.
CREATE FUNCTION day_partitions_ensure(parent text, from_time bigint, to_time bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  k record := day_partition_key(parent);
  d bigint := greatest(from_time - from_time % 86400,
                       (SELECT l.legacy_before FROM day_partition_layouts l WHERE l.parent = day_partitions_ensure.parent));
  part text;
  made integer := 0;
BEGIN
  WHILE d < to_time LOOP
    part := parent || '_p' || to_char(to_timestamp(d) AT TIME ZONE 'UTC', 'YYYYMMDD');
    IF to_regclass(part) IS NULL THEN
      EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, parent);
      EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= %s AND %I < %s RETURNING *) INSERT INTO %I SELECT * FROM moved',
                     parent || '_default', k.col, day_partition_bound(parent, d), k.col, day_partition_bound(parent, d + 86400), part);
      IF to_regproc(parent || '_partition_indexes') IS NOT NULL THEN
        EXECUTE format('SELECT %I(%L)', parent || '_partition_indexes', part);
      END IF;
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
                     parent, part, day_partition_bound(parent, d), day_partition_bound(parent, d + 86400));
      made := made + 1;
    END IF;
    d := d + 86400;
  END LOOP;
  RETURN made;
END $$;

-- The days (Unix seconds of their midnight) that the default partition holds
-- rows for, from the cut-over on: earlier rows belong to no day table and wait for retention.
CREATE FUNCTION day_partitions_stray_days(parent text, max_days integer) RETURNS SETOF bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t text := day_partition_epoch_sql(parent);
BEGIN
  RETURN QUERY EXECUTE format('SELECT DISTINCT %s - %s %% 86400 FROM %I WHERE %s >= $1 ORDER BY 1 LIMIT $2',
                              t, t, parent || '_default', t)
    USING (SELECT coalesce(max(l.legacy_before), 0) FROM day_partition_layouts l WHERE l.parent = day_partitions_stray_days.parent), max_days;
END $$;

-- The sandbox captures.
ALTER TABLE sandbox_messages RENAME TO sandbox_messages_legacy;
ALTER INDEX sandbox_messages_pkey RENAME TO sandbox_messages_legacy_pkey;
ALTER INDEX sandbox_messages_received RENAME TO sandbox_messages_legacy_received;
ALTER INDEX sandbox_messages_message RENAME TO sandbox_messages_legacy_message;
ALTER INDEX sandbox_messages_rcpt RENAME TO sandbox_messages_legacy_rcpt;
ALTER INDEX sandbox_messages_account RENAME TO sandbox_messages_legacy_account;

-- No primary key: a key of a partitioned table must contain received_at; ids
-- come from one sequence, and each table has a unique index on id (below).
CREATE TABLE sandbox_messages (
  id bigint NOT NULL DEFAULT nextval('sandbox_messages_id_seq'),
  received_at timestamptz NOT NULL DEFAULT now(),
  mail_from text NOT NULL DEFAULT '',
  rcpt_to text[] NOT NULL,
  subject text NOT NULL DEFAULT '',
  message_id_header text NOT NULL DEFAULT '',
  mailroom_message_id uuid,
  size integer NOT NULL,
  raw bytea NOT NULL,
  account_id uuid
) PARTITION BY RANGE (received_at);
-- The sequence outlives the legacy partition (retention drops it one day).
ALTER SEQUENCE sandbox_messages_id_seq OWNED BY sandbox_messages.id;

-- The indexes of 0001, 0300 and 0510, per partition (the legacy table's are adopted).
CREATE INDEX sandbox_messages_received ON sandbox_messages (received_at DESC, id DESC);
CREATE INDEX sandbox_messages_message ON sandbox_messages (mailroom_message_id);
CREATE INDEX sandbox_messages_rcpt ON sandbox_messages USING gin (rcpt_to);
CREATE INDEX sandbox_messages_account ON sandbox_messages (account_id, received_at DESC);

-- A capture is read by id (the dashboard's sandbox inbox): each table's own
-- unique index, as the legacy table's primary key is, so that its attach builds nothing.
CREATE FUNCTION sandbox_messages_partition_indexes(part text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE UNIQUE INDEX %I ON %I (id)', part || '_id', part);
END $$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM sandbox_messages_legacy LIMIT 1) THEN
    EXECUTE format('ALTER TABLE sandbox_messages ATTACH PARTITION sandbox_messages_legacy FOR VALUES FROM (MINVALUE) TO (%L::timestamptz)',
                   (SELECT to_timestamp(legacy_before) FROM day_partition_layouts WHERE parent = 'sandbox_messages'));
  ELSE
    DROP TABLE sandbox_messages_legacy;
    UPDATE day_partition_layouts SET legacy_before = 0 WHERE parent = 'sandbox_messages';
  END IF;
END $$;

CREATE TABLE sandbox_messages_default (LIKE sandbox_messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
SELECT sandbox_messages_partition_indexes('sandbox_messages_default');
ALTER TABLE sandbox_messages ATTACH PARTITION sandbox_messages_default DEFAULT;

-- Two days behind to eight ahead, as the maintenance job keeps them (lib/domain/partitions/day-partitions.ts).
SELECT day_partitions_ensure('sandbox_messages', extract(epoch FROM now())::bigint - 2 * 86400, extract(epoch FROM now())::bigint + 8 * 86400);
