-- Invitations to join an account (docs/adr/0512-account-invitations.md): an
-- account admin who adds someone not yet a member creates one; the membership
-- exists only once the invited person accepts. The token is single-use and
-- only its SHA-256 is stored; `email` is the address as typed (normalised).
CREATE TABLE staff_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'support', 'marketing')),
  token_hash text NOT NULL UNIQUE,
  invited_by text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz
);
-- One pending invitation per account and address: inviting again replaces it.
CREATE UNIQUE INDEX staff_invitations_pending ON staff_invitations (account_id, email) WHERE accepted_at IS NULL;
