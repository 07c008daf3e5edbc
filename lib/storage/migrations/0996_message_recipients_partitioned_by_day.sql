-- A message's recipients partitioned by UTC day on their day-prefixed id
-- (docs/adr/0043), through the generic day functions of migration 0972.
-- Catalog changes only: the table of 0001 is renamed
-- message_recipients_legacy and attached for every id below the cut-over
-- day's first (its CHECK, validated by 0995, proves the bound, so the attach
-- reads no row; an empty one is dropped); its primary key, indexes, CHECKs
-- and foreign key to messages have the parent's definitions and are adopted.
--
-- A new id is (UTC day number << 32) | (the next value of the old sequence,
-- its low 32 bits), the webhook notifications' scheme (docs/adr/0042):
-- unique, increasing, under 2^53 until 2059, and its day is its partition.
-- The key contains the partition column, so the table keeps its primary key,
-- and the tracking rows their foreign keys to it: added again below on the
-- new parent, NOT VALID (delivery_attempts and engagement_windows are still
-- plain tables, for which PostgreSQL 15 allows it), validated by 0997 in its
-- own transaction, then adopted by their own partitioned parents (0998).
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_recipient_id_fkey;
ALTER TABLE engagement_windows DROP CONSTRAINT engagement_windows_recipient_id_fkey;
-- The statement trigger of 0300 moves to the parent (a partition's own statement triggers do not fire for inserts through it).
DROP TRIGGER message_recipients_notify_deliver ON message_recipients;

ALTER TABLE message_recipients RENAME TO message_recipients_legacy;
ALTER INDEX message_recipients_pkey RENAME TO message_recipients_legacy_pkey;
ALTER INDEX message_recipients_message RENAME TO message_recipients_legacy_message;
ALTER INDEX message_recipients_pending RENAME TO message_recipients_legacy_pending;
ALTER TABLE message_recipients_legacy RENAME CONSTRAINT message_recipients_message_id_fkey TO message_recipients_legacy_message_id_fkey;

CREATE TABLE message_recipients (
  id bigint NOT NULL
    DEFAULT ((floor(extract(epoch FROM now()) / 86400)::bigint << 32) | (nextval('message_recipients_id_seq') & 4294967295)),
  message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  account_id uuid NOT NULL,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  kind text NOT NULL CONSTRAINT message_recipients_kind_check CHECK (kind IN ('to', 'cc', 'bcc')),
  status text NOT NULL DEFAULT 'queued'
    CONSTRAINT message_recipients_status_check CHECK (status IN ('queued', 'deferred', 'delivered', 'failed', 'rejected', 'suppressed')),
  attempts integer NOT NULL DEFAULT 0,
  last_reply text,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT message_recipients_pkey PRIMARY KEY (id)
) PARTITION BY RANGE (id);
-- The sequence outlives the legacy partition (retention drops it one day).
ALTER SEQUENCE message_recipients_id_seq OWNED BY message_recipients.id;

-- The indexes of 0001 and 0730, per partition (the legacy table's are adopted).
CREATE INDEX message_recipients_message ON message_recipients (message_id);
CREATE INDEX message_recipients_pending ON message_recipients (id) WHERE status IN ('queued', 'deferred');

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM message_recipients_legacy LIMIT 1) THEN
    EXECUTE format('ALTER TABLE message_recipients ATTACH PARTITION message_recipients_legacy FOR VALUES FROM (MINVALUE) TO (%s)',
                   (SELECT day_partition_bound('message_recipients', legacy_before) FROM day_partition_layouts WHERE parent = 'message_recipients'));
  ELSE
    DROP TABLE message_recipients_legacy;
    UPDATE day_partition_layouts SET legacy_before = 0 WHERE parent = 'message_recipients';
  END IF;
END $$;

CREATE TABLE message_recipients_default (LIKE message_recipients INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE message_recipients ATTACH PARTITION message_recipients_default DEFAULT;

CREATE TRIGGER message_recipients_notify_deliver
  AFTER INSERT ON message_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION mailroom_notify_deliver();

-- Validated by 0997 in its own transaction (a scan of each that lets their inserts go on).
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_recipient_id_fkey
  FOREIGN KEY (recipient_id) REFERENCES message_recipients (id) ON DELETE CASCADE NOT VALID;
ALTER TABLE engagement_windows ADD CONSTRAINT engagement_windows_recipient_id_fkey
  FOREIGN KEY (recipient_id) REFERENCES message_recipients (id) ON DELETE CASCADE NOT VALID;

-- Two days behind to eight ahead, as the maintenance job keeps them (lib/domain/partitions/day-partitions.ts).
SELECT day_partitions_ensure('message_recipients', extract(epoch FROM now())::bigint - 2 * 86400, extract(epoch FROM now())::bigint + 8 * 86400);
