-- Webhook notifications partitioned by UTC day on their day-prefixed id
-- (docs/adr/0042), through the generic day functions of migration 0972.
-- Catalog changes only: the table of 0001 is renamed
-- webhook_notifications_legacy and attached for every id below the cut-over
-- day's first (its CHECK, validated by 0991, proves the bound, so the attach
-- reads no row; an empty one is dropped); its primary key, its indexes and
-- its foreign key have the parent's definitions and are adopted.
--
-- A new id is (UTC day number << 32) | (the next value of the old sequence,
-- its low 32 bits): unique, increasing, under 2^53 (a JavaScript number) until
-- 2059, and its day is its partition. The key contains the partition column,
-- so the table keeps its primary key and webhook_attempts its foreign key
-- (added again below: it named the old table), with ON DELETE CASCADE.
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_notification_id_fkey;

ALTER TABLE webhook_notifications RENAME TO webhook_notifications_legacy;
ALTER INDEX webhook_notifications_pkey RENAME TO webhook_notifications_legacy_pkey;
ALTER INDEX webhook_notifications_pending RENAME TO webhook_notifications_legacy_pending;
ALTER INDEX webhook_notifications_webhook RENAME TO webhook_notifications_legacy_webhook;
ALTER INDEX webhook_notifications_webhook_status RENAME TO webhook_notifications_legacy_webhook_status;
ALTER INDEX webhook_notifications_completed RENAME TO webhook_notifications_legacy_completed;
ALTER TABLE webhook_notifications_legacy RENAME CONSTRAINT webhook_notifications_webhook_id_fkey TO webhook_notifications_legacy_webhook_id_fkey;

CREATE TABLE webhook_notifications (
  id bigint NOT NULL
    DEFAULT ((floor(extract(epoch FROM now()) / 86400)::bigint << 32) | (nextval('webhook_notifications_id_seq') & 4294967295)),
  webhook_id bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  account_id uuid NOT NULL,
  event_id bigint NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending'
    CONSTRAINT webhook_notifications_status_check CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled', 'held')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  single_attempt boolean NOT NULL DEFAULT false,
  CONSTRAINT webhook_notifications_pkey PRIMARY KEY (id)
) PARTITION BY RANGE (id);
-- The sequence outlives the legacy partition (retention drops it one day).
ALTER SEQUENCE webhook_notifications_id_seq OWNED BY webhook_notifications.id;

-- The indexes of 0001, 0400 and 0930, per partition (the legacy table's are adopted).
CREATE INDEX webhook_notifications_pending ON webhook_notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_notifications_webhook ON webhook_notifications (webhook_id, id DESC);
CREATE INDEX webhook_notifications_webhook_status ON webhook_notifications (webhook_id, status, id DESC);
CREATE INDEX webhook_notifications_completed ON webhook_notifications (completed_at) WHERE status <> 'pending';

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_notifications_legacy LIMIT 1) THEN
    EXECUTE format('ALTER TABLE webhook_notifications ATTACH PARTITION webhook_notifications_legacy FOR VALUES FROM (MINVALUE) TO (%s)',
                   (SELECT day_partition_bound('webhook_notifications', legacy_before) FROM day_partition_layouts WHERE parent = 'webhook_notifications'));
  ELSE
    DROP TABLE webhook_notifications_legacy;
    UPDATE day_partition_layouts SET legacy_before = 0 WHERE parent = 'webhook_notifications';
  END IF;
END $$;

CREATE TABLE webhook_notifications_default (LIKE webhook_notifications INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE webhook_notifications ATTACH PARTITION webhook_notifications_default DEFAULT;

-- Validated by 0993 in its own transaction (a scan of the attempts that lets their inserts go on).
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_notification_id_fkey
  FOREIGN KEY (notification_id) REFERENCES webhook_notifications (id) ON DELETE CASCADE NOT VALID;

-- Two days behind to eight ahead, as the maintenance job keeps them (lib/domain/partitions/day-partitions.ts).
SELECT day_partitions_ensure('webhook_notifications', extract(epoch FROM now())::bigint - 2 * 86400, extract(epoch FROM now())::bigint + 8 * 86400);
