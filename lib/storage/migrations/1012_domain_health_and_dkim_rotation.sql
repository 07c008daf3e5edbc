-- Domain health and DKIM key rotation (docs/adr/0134-domains-api-and-health.md).
-- `health_checks`: the last run of the checks (verification, DKIM, SPF, DMARC,
-- alignment, the Return-Path MX, PTR), a JSON array of {check, status,
-- detail, fix}; `checked_at`: when. A rotation's new key waits in
-- `dkim_next_*` until its record verifies; the key it replaces keeps its
-- record published (`dkim_previous_*`) until `dkim_previous_until`.
ALTER TABLE sender_domains
  ADD COLUMN health_checks jsonb,
  ADD COLUMN checked_at timestamptz,
  ADD COLUMN dkim_next_selector text,
  ADD COLUMN dkim_next_private_key text,
  ADD COLUMN dkim_next_public_key text,
  ADD COLUMN dkim_previous_selector text,
  ADD COLUMN dkim_previous_public_key text,
  ADD COLUMN dkim_previous_until timestamptz;
