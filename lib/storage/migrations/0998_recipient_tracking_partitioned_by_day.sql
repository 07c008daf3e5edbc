-- Delivery attempts and engagement windows partitioned by the day of their
-- recipient (docs/adr/0043): RANGE on recipient_id with the recipients' day
-- bounds (key_kind 'day_id'), so that a recipient's rows live in its day's
-- tables and a day of all three goes together. Catalog changes only: each
-- table of 0001/0500 is renamed <table>_legacy and attached for every
-- recipient id below the cut-over day's first (its CHECK, validated by 0995,
-- proves the bound; an empty one is dropped). Its indexes and its foreign key
-- to the recipients (0996, validated by 0997) have the parent's definitions
-- and are adopted, not built or checked again.
--
-- delivery_attempts loses its primary key on id (a key of a partitioned
-- table must contain recipient_id, and nothing reads an attempt by its id);
-- ids still come from its sequence. engagement_windows' key (recipient_id,
-- kind, link_key) contains it and stays.
ALTER TABLE delivery_attempts RENAME TO delivery_attempts_legacy;
ALTER INDEX delivery_attempts_pkey RENAME TO delivery_attempts_legacy_pkey;
ALTER INDEX delivery_attempts_message RENAME TO delivery_attempts_legacy_message;
ALTER TABLE delivery_attempts_legacy RENAME CONSTRAINT delivery_attempts_recipient_id_fkey TO delivery_attempts_legacy_recipient_id_fkey;

CREATE TABLE delivery_attempts (
  id bigint NOT NULL DEFAULT nextval('delivery_attempts_id_seq'),
  recipient_id bigint NOT NULL,
  message_id uuid NOT NULL,
  account_id uuid NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  outcome text NOT NULL,
  smtp_code integer,
  enhanced_code text,
  reply text NOT NULL DEFAULT '',
  mx_host text NOT NULL DEFAULT '',
  duration_ms integer NOT NULL DEFAULT 0,
  CONSTRAINT delivery_attempts_recipient_id_fkey FOREIGN KEY (recipient_id) REFERENCES message_recipients (id) ON DELETE CASCADE
) PARTITION BY RANGE (recipient_id);
ALTER SEQUENCE delivery_attempts_id_seq OWNED BY delivery_attempts.id;
CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id, attempted_at);

ALTER TABLE engagement_windows RENAME TO engagement_windows_legacy;
ALTER INDEX engagement_windows_pkey RENAME TO engagement_windows_legacy_pkey;
ALTER TABLE engagement_windows_legacy RENAME CONSTRAINT engagement_windows_recipient_id_fkey TO engagement_windows_legacy_recipient_id_fkey;

CREATE TABLE engagement_windows (
  recipient_id bigint NOT NULL,
  kind text NOT NULL CONSTRAINT engagement_windows_kind_check CHECK (kind IN ('opened', 'clicked')),
  link_key text NOT NULL,
  window_start timestamptz NOT NULL,
  hits bigint NOT NULL DEFAULT 1,
  logged bigint NOT NULL DEFAULT 1,
  CONSTRAINT engagement_windows_pkey PRIMARY KEY (recipient_id, kind, link_key),
  CONSTRAINT engagement_windows_recipient_id_fkey FOREIGN KEY (recipient_id) REFERENCES message_recipients (id) ON DELETE CASCADE
) PARTITION BY RANGE (recipient_id);

-- The three tables keep one set of bounds: the legacy tables stay (even
-- empty) exactly when the recipients' legacy table does, and go with it
-- (then they are empty: their foreign key names its rows).
DO $$
DECLARE
  t text;
  cut bigint := (SELECT legacy_before FROM day_partition_layouts WHERE parent = 'message_recipients');
BEGIN
  FOREACH t IN ARRAY ARRAY['delivery_attempts', 'engagement_windows'] LOOP
    IF cut > 0 THEN
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%s)', t, t || '_legacy', day_partition_bound(t, cut));
    ELSE
      EXECUTE format('DROP TABLE %I', t || '_legacy');
    END IF;
    UPDATE day_partition_layouts SET legacy_before = cut WHERE parent = t;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', t || '_default', t);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I DEFAULT', t, t || '_default');
    -- Two days behind to eight ahead, as the maintenance job keeps them (lib/domain/partitions/day-partitions.ts).
    PERFORM day_partitions_ensure(t, extract(epoch FROM now())::bigint - 2 * 86400, extract(epoch FROM now())::bigint + 8 * 86400);
  END LOOP;
END $$;
