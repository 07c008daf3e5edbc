-- One stored copy per SMTP transaction (docs/adr/0807). A transaction's
-- routed recipients are one row per route; `recipients` lists each of them
-- ([{"Email", "MailboxHash"}], the first being original_recipient and
-- mailbox_hash), NULL on rows stored before (one recipient each). Only the
-- first row of a transaction holds the raw MIME; the others name it in
-- `raw_of` and hold an empty raw. All rows of a transaction share
-- received_at and expires_at, so they are in one day table and leave it
-- together. Adding columns without a default is a catalog change on every
-- day table.
ALTER TABLE inbound_messages ADD COLUMN recipients jsonb;
ALTER TABLE inbound_messages ADD COLUMN raw_of uuid;

-- Bytes of raw MIME stored per client address (IPv6: its /64) and per
-- account, per UTC hour (MAILROOM_INBOUND_BYTES_PER_ADDRESS_HOUR,
-- MAILROOM_INBOUND_BYTES_PER_ACCOUNT_HOUR), counted in the transaction that
-- stores the message. Rows of past hours are deleted by the inbound server.
CREATE TABLE inbound_byte_counters (
  scope text NOT NULL CHECK (scope IN ('address', 'account')),
  key text NOT NULL,
  hour_start bigint NOT NULL,
  bytes bigint NOT NULL,
  PRIMARY KEY (scope, key, hour_start)
);
