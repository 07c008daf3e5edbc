-- GET /events' extension filters (docs/contract.md §7.6, docs/adr/0051).
--
-- Recipient: events_account_recipient_time on every day table of events, the
-- shape of the other three (account, key, then newest first), so a page of a
-- recipient's events is a merge of index scans and never a sort.
--
-- Subject: a trigram index on messages.subject (pg_trgm, in PostgreSQL's
-- contrib and trusted since PostgreSQL 13), which answers a case-insensitive
-- ILIKE '%fragment%' of three characters or more.
--
-- Each day table's index is named <table>_account_recipient_time and
-- <table>_subject_trgm, as the others are, and made only if it does not exist:
-- on a large existing log, build them first with CREATE INDEX CONCURRENTLY
-- under those names (docs/adr/0051), and this migration only attaches them.
-- Otherwise it builds each in its transaction, holding a SHARE lock on every
-- day table it built (inserts into it wait) until the last one is done.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX events_account_recipient_time ON ONLY events (account_id, lower(recipient), logged_at DESC, id DESC);
CREATE INDEX messages_subject_trgm ON ONLY messages USING gin (subject gin_trgm_ops);

DO $$
DECLARE
  part text;
BEGIN
  FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (account_id, lower(recipient), logged_at DESC, id DESC)', part || '_account_recipient_time', part);
    EXECUTE format('ALTER INDEX events_account_recipient_time ATTACH PARTITION %I', part || '_account_recipient_time');
  END LOOP;
  FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'messages'::regclass LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I USING gin (subject gin_trgm_ops)', part || '_subject_trgm', part);
    EXECUTE format('ALTER INDEX messages_subject_trgm ATTACH PARTITION %I', part || '_subject_trgm');
  END LOOP;
END $$;

-- The day tables made from now on get both before their attach (0952, 0972), which adopts them.
CREATE OR REPLACE FUNCTION event_partition_indexes(part text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE INDEX %I ON %I (account_id, logged_at DESC, id DESC)', part || '_account_time', part);
  EXECUTE format('CREATE INDEX %I ON %I (account_id, type, logged_at DESC, id DESC)', part || '_account_type_time', part);
  EXECUTE format('CREATE INDEX %I ON %I (account_id, message_id, logged_at DESC, id DESC)', part || '_account_message_time', part);
  EXECUTE format('CREATE INDEX %I ON %I (account_id, lower(recipient), logged_at DESC, id DESC)', part || '_account_recipient_time', part);
END $$;

CREATE OR REPLACE FUNCTION messages_partition_indexes(part text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE UNIQUE INDEX %I ON %I (id)', part || '_id', part);
  EXECUTE format('CREATE INDEX %I ON %I USING gin (subject gin_trgm_ops)', part || '_subject_trgm', part);
END $$;
