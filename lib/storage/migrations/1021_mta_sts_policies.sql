-- MTA-STS policies as fetched (RFC 8461 §5.1: a sender keeps a domain's policy
-- for its max_age, so that an attacker who later strips the TXT record or
-- blocks the HTTPS fetch cannot downgrade it; docs/adr/0326). Each worker
-- process serves policies from memory and reads this table on a domain's first
-- lookup, so a restarted worker keeps enforcing what it knew. One row per
-- recipient domain; a new fetch replaces it; rows expired a day are deleted
-- when another policy is written.
CREATE TABLE mta_sts_policies (
  domain text PRIMARY KEY,
  record_id text NOT NULL,
  policy text NOT NULL,
  fetched_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX mta_sts_policies_expiry ON mta_sts_policies (expires_at);
