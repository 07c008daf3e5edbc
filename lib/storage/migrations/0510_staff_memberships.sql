-- Staff memberships (docs/adr/0510): a staff user belongs to one or more accounts with a role in each
-- (docs/adr/0510-staff-membership-and-the-account-in-the-url.md). The owner
-- flag marks instance operators: they see every account and manage accounts.
-- staff_users.role stays: it is the role a user gets when added without an
-- account (a member of the default account) and the "last admin" rule counts it.
ALTER TABLE staff_users ADD COLUMN is_owner boolean NOT NULL DEFAULT false;

CREATE TABLE staff_memberships (
  user_id uuid NOT NULL REFERENCES staff_users (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('admin', 'support', 'marketing')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, account_id)
);
CREATE INDEX staff_memberships_account ON staff_memberships (account_id);

-- Upgrade: every existing user keeps seeing what they saw (the default
-- account, with their role); existing admins managed the whole install, so
-- they become owners.
INSERT INTO staff_memberships (user_id, account_id, role)
SELECT u.id, a.id, u.role FROM staff_users u CROSS JOIN accounts a WHERE a.is_default;
UPDATE staff_users SET is_owner = true WHERE role = 'admin';

-- Captured sandbox mail carries its account (the account of the message
-- whose Message-ID it bears), so each account's inbox shows only its own.
ALTER TABLE sandbox_messages ADD COLUMN account_id uuid;
UPDATE sandbox_messages s SET account_id = m.account_id FROM messages m WHERE m.id = s.mailroom_message_id;
CREATE INDEX sandbox_messages_account ON sandbox_messages (account_id, received_at DESC);

-- The dashboard's API key of each account, encrypted at rest (AES-256-GCM
-- with a key derived from AUTH_SECRET); replaces the plain-text
-- dashboard_api_key rows of instance_settings, which are dropped.
CREATE TABLE dashboard_api_keys (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id uuid NOT NULL,
  sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
DELETE FROM instance_settings WHERE key = 'dashboard_api_key' OR key LIKE 'dashboard_api_key:%';
