-- Received inbound mail partitioned by UTC day on received_at (docs/adr/0041),
-- through the generic day functions of migration 0972. Catalog changes only:
-- the table of 0900 is renamed inbound_messages_legacy and attached (its
-- CHECK, validated by 0981, proves the bound, so the attach reads no row; an
-- empty one is dropped); its identical indexes and foreign keys are adopted,
-- not rebuilt or validated again.
--
-- inbound_attempts loses its foreign key: a key referring to a partitioned
-- table must contain its partition column, and a day of messages goes by
-- DROP, which no ON DELETE CASCADE follows. The retention purge deletes a
-- message's attempts itself (lib/storage/inbound-rows.ts).
ALTER TABLE inbound_attempts DROP CONSTRAINT inbound_attempts_inbound_message_id_fkey;

ALTER TABLE inbound_messages RENAME TO inbound_messages_legacy;
ALTER INDEX inbound_messages_pkey RENAME TO inbound_messages_legacy_pkey;
ALTER INDEX inbound_messages_account_received RENAME TO inbound_messages_legacy_account_received;
ALTER INDEX inbound_messages_expires RENAME TO inbound_messages_legacy_expires;
ALTER INDEX inbound_messages_replied_to RENAME TO inbound_messages_legacy_replied_to;

-- No primary key: a key of a partitioned table must contain received_at;
-- ids are random UUIDs, and each table has a unique index on id (below).
CREATE TABLE inbound_messages (
  id uuid NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  route_id bigint REFERENCES inbound_routes (id) ON DELETE SET NULL,
  webhook_url text NOT NULL,
  original_recipient text NOT NULL,
  mailbox_hash text NOT NULL DEFAULT '',
  mail_from text NOT NULL DEFAULT '',
  remote_ip text NOT NULL DEFAULT '',
  helo text NOT NULL DEFAULT '',
  subject text NOT NULL DEFAULT '',
  from_email text NOT NULL DEFAULT '',
  size integer NOT NULL,
  raw bytea NOT NULL,
  payload jsonb,
  replied_to_message_id uuid,
  status text NOT NULL DEFAULT 'pending' CONSTRAINT inbound_messages_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  received_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
) PARTITION BY RANGE (received_at);

-- The indexes of 0900 and 0960, per partition (the legacy table's are adopted).
CREATE INDEX inbound_messages_account_received ON inbound_messages (account_id, received_at DESC, id);
CREATE INDEX inbound_messages_expires ON inbound_messages (expires_at);
CREATE INDEX inbound_messages_replied_to ON inbound_messages (account_id, replied_to_message_id, received_at) WHERE replied_to_message_id IS NOT NULL;

-- A message is read by id (the API, the post job): each table's own unique
-- index, as the legacy table's primary key is, so that its attach builds nothing.
CREATE FUNCTION inbound_messages_partition_indexes(part text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE UNIQUE INDEX %I ON %I (id)', part || '_id', part);
END $$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM inbound_messages_legacy LIMIT 1) THEN
    EXECUTE format('ALTER TABLE inbound_messages ATTACH PARTITION inbound_messages_legacy FOR VALUES FROM (MINVALUE) TO (%L::timestamptz)',
                   (SELECT to_timestamp(legacy_before) FROM day_partition_layouts WHERE parent = 'inbound_messages'));
  ELSE
    DROP TABLE inbound_messages_legacy;
    UPDATE day_partition_layouts SET legacy_before = 0 WHERE parent = 'inbound_messages';
  END IF;
END $$;

CREATE TABLE inbound_messages_default (LIKE inbound_messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
SELECT inbound_messages_partition_indexes('inbound_messages_default');
ALTER TABLE inbound_messages ATTACH PARTITION inbound_messages_default DEFAULT;

-- Two days behind to eight ahead, as the maintenance job keeps them (lib/domain/partitions/day-partitions.ts).
SELECT day_partitions_ensure('inbound_messages', extract(epoch FROM now())::bigint - 2 * 86400, extract(epoch FROM now())::bigint + 8 * 86400);
