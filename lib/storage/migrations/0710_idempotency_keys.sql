-- Idempotency-Key on POST /email (lib/domain/sending/idempotency-keys.ts,
-- docs/adr/0110). One row per API key and client key, written in the same
-- transaction as the acceptance it answers for (so a committed message always
-- has its row, and a rolled-back one never does). `request_hash` is the SHA-256
-- of the raw request body; `response_status`/`response_body` are the first
-- answer, replayed byte for byte. Purged by maintenance 24 hours after creation.
CREATE TABLE idempotency_keys (
  api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 256),
  request_hash bytea NOT NULL,
  message_id uuid,
  response_status integer NOT NULL,
  response_body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
