-- Scoped API keys (docs/adr/0130-scoped-api-keys.md, docs/contract.md §17):
-- `full` may call everything, `send` only the sending endpoints and SMTP
-- submission, `read` only GET endpoints. Keys made before this migration stay
-- `full`. `sender_domains` limits the From domains a key may send from (NULL:
-- any verified domain of its account); names are lowercase ASCII (xn--).
ALTER TABLE api_keys
  ADD COLUMN scope text NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'send', 'read')),
  ADD COLUMN sender_domains text[];
