-- Messages partitioned by UTC day on created_at (docs/adr/0044), through the
-- generic day functions of migration 0972. Catalog changes only: the table of
-- 0001 is renamed messages_legacy and attached (its CHECK, validated by 1001,
-- proves the bound, so the attach reads no row; an empty one is dropped); its
-- identical indexes, CHECK and foreign keys are adopted, not rebuilt or
-- validated again.
--
-- message_recipients loses its foreign key to messages: a key referring to a
-- partitioned table must contain its partition column (MessageID is a random
-- UUID, docs/contract.md §5.19), and a day of messages goes by DROP, which no
-- ON DELETE CASCADE follows. A recipient's day is its message's day (both
-- take now() of the accepting statement), so the day's recipients tables go
-- with it, and the row-level purge deletes a message's recipients itself
-- (lib/storage/retention-rows.ts).
ALTER TABLE message_recipients DROP CONSTRAINT message_recipients_message_id_fkey;

ALTER TABLE messages RENAME TO messages_legacy;
ALTER INDEX messages_pkey RENAME TO messages_legacy_pkey;
ALTER INDEX messages_account_created RENAME TO messages_legacy_account_created;
ALTER INDEX messages_scheduled_due RENAME TO messages_legacy_scheduled_due;
ALTER INDEX messages_scheduled_account RENAME TO messages_legacy_scheduled_account;

-- No primary key: a key of a partitioned table must contain created_at; each
-- table has a unique index on id (below). The columns of 0001, 0301, 0910 and
-- 0920, in their order.
CREATE TABLE messages (
  id uuid NOT NULL,
  account_id uuid NOT NULL CONSTRAINT messages_account_id_fkey REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id uuid CONSTRAINT messages_api_key_id_fkey REFERENCES api_keys (id) ON DELETE SET NULL,
  from_email text NOT NULL,
  from_domain text NOT NULL,
  subject text NOT NULL,
  headers jsonb NOT NULL,
  content jsonb NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  size integer NOT NULL DEFAULT 0,
  transport text NOT NULL DEFAULT 'api',
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  tracked_links jsonb,
  template_id bigint,
  template_version integer,
  send_at timestamptz,
  schedule_status text CONSTRAINT messages_schedule_status_check CHECK (schedule_status IN ('scheduled', 'sending', 'cancelled'))
) PARTITION BY RANGE (created_at);

-- The indexes of 0001 and 0920, per partition (the legacy table's are adopted).
CREATE INDEX messages_account_created ON messages (account_id, created_at DESC);
CREATE INDEX messages_scheduled_due ON messages (send_at) WHERE schedule_status = 'scheduled';
CREATE INDEX messages_scheduled_account ON messages (account_id, send_at, id) WHERE schedule_status = 'scheduled';

-- A message is read by id (delivery, tracking, the API): each table's own
-- unique index, as the legacy table's primary key is, so that its attach builds nothing.
CREATE FUNCTION messages_partition_indexes(part text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE UNIQUE INDEX %I ON %I (id)', part || '_id', part);
END $$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM messages_legacy LIMIT 1) THEN
    EXECUTE format('ALTER TABLE messages ATTACH PARTITION messages_legacy FOR VALUES FROM (MINVALUE) TO (%L::timestamptz)',
                   (SELECT to_timestamp(legacy_before) FROM day_partition_layouts WHERE parent = 'messages'));
  ELSE
    DROP TABLE messages_legacy;
    UPDATE day_partition_layouts SET legacy_before = 0 WHERE parent = 'messages';
  END IF;
END $$;

CREATE TABLE messages_default (LIKE messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
SELECT messages_partition_indexes('messages_default');
ALTER TABLE messages ATTACH PARTITION messages_default DEFAULT;

-- Two days behind to eight ahead, as the maintenance job keeps them (lib/domain/partitions/day-partitions.ts).
SELECT day_partitions_ensure('messages', extract(epoch FROM now())::bigint - 2 * 86400, extract(epoch FROM now())::bigint + 8 * 86400);
