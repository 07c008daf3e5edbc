-- Core schema of Mailroom. Times are timestamptz except events.logged_at,
-- which is Unix seconds: the API filters and orders by whole seconds
-- (docs/contract.md §7.1, GET /events), so the column is exactly what is compared.

CREATE TABLE instance_settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  plan text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'deleted')),
  webhook_signing_key text NOT NULL,
  retention_days integer NOT NULL DEFAULT 30 CHECK (retention_days > 0),
  track_opens boolean NOT NULL DEFAULT true,
  track_clicks boolean NOT NULL DEFAULT true,
  limit_per_minute integer,
  limit_per_hour integer,
  limit_per_day integer,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_one_default ON accounts (is_default) WHERE is_default;

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  label text NOT NULL DEFAULT '',
  prefix text NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE sender_domains (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified')),
  verification_token text NOT NULL,
  dkim_selector text NOT NULL,
  dkim_private_key text NOT NULL,
  dkim_public_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  verified_at timestamptz,
  UNIQUE (account_id, name)
);

CREATE TABLE messages (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  from_email text NOT NULL,
  from_domain text NOT NULL,
  subject text NOT NULL,
  -- Message.Headers of the event record, computed once at acceptance.
  headers jsonb NOT NULL,
  -- Normalised request: bodies, attachments, custom headers, tags, tracking.
  content jsonb NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  size integer NOT NULL DEFAULT 0,
  transport text NOT NULL DEFAULT 'api',
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_account_created ON messages (account_id, created_at DESC);

CREATE TABLE message_recipients (
  id bigserial PRIMARY KEY,
  message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  account_id uuid NOT NULL,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  kind text NOT NULL CHECK (kind IN ('to', 'cc', 'bcc')),
  -- queued → (deferred)* → delivered | failed | rejected; suppressed at send time.
  status text NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'deferred', 'delivered', 'failed', 'rejected', 'suppressed')),
  attempts integer NOT NULL DEFAULT 0,
  last_reply text,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX message_recipients_message ON message_recipients (message_id);
CREATE INDEX message_recipients_pending ON message_recipients (status) WHERE status IN ('queued', 'deferred');

CREATE TABLE delivery_attempts (
  id bigserial PRIMARY KEY,
  recipient_id bigint NOT NULL REFERENCES message_recipients (id) ON DELETE CASCADE,
  message_id uuid NOT NULL,
  account_id uuid NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  outcome text NOT NULL,
  smtp_code integer,
  enhanced_code text,
  reply text NOT NULL DEFAULT '',
  mx_host text NOT NULL DEFAULT '',
  duration_ms integer NOT NULL DEFAULT 0
);
CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id, attempted_at);

CREATE TABLE events (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL,
  message_id uuid NOT NULL,
  type text NOT NULL
    CHECK (type IN ('accepted', 'rejected', 'failed', 'delivered', 'opened', 'clicked', 'unsubscribed', 'complained')),
  logged_at bigint NOT NULL,
  log_level text NOT NULL DEFAULT 'info',
  recipient text NOT NULL DEFAULT '',
  reason text NOT NULL DEFAULT '',
  ip text,
  geo_city text,
  geo_region text,
  geo_country text,
  url text,
  -- Machine-readable detail (SMTP code, enhanced status, diagnostic) for
  -- webhook payloads and the dashboard; never part of the spec's record.
  details jsonb
);
-- One index per query shape of GET /events (docs/contract.md §7.2): newest first,
-- insertion order second, all scoped to one account.
CREATE INDEX events_account_time ON events (account_id, logged_at DESC, id DESC);
CREATE INDEX events_account_type_time ON events (account_id, type, logged_at DESC, id DESC);
CREATE INDEX events_account_message_time ON events (account_id, message_id, logged_at DESC, id DESC);

CREATE TABLE webhooks (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  event text NOT NULL,
  url text NOT NULL,
  status text NOT NULL DEFAULT 'Enabled',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_response_code integer NOT NULL DEFAULT 0,
  last_response_body text NOT NULL DEFAULT '',
  last_response_at timestamptz,
  last_response_try_counter integer NOT NULL DEFAULT 0
);
CREATE INDEX webhooks_account ON webhooks (account_id, id);

-- The notification outbox: one row per (event, matching webhook), written in
-- the transaction that logs the event.
CREATE TABLE webhook_notifications (
  id bigserial PRIMARY KEY,
  webhook_id bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  account_id uuid NOT NULL,
  event_id bigint NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX webhook_notifications_pending ON webhook_notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_notifications_webhook ON webhook_notifications (webhook_id, id DESC);

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  notification_id bigint NOT NULL REFERENCES webhook_notifications (id) ON DELETE CASCADE,
  webhook_id bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  try_number integer NOT NULL,
  status_code integer NOT NULL DEFAULT 0,
  duration_ms integer NOT NULL DEFAULT 0,
  body_excerpt text NOT NULL DEFAULT '',
  error text
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id DESC);

CREATE TABLE suppressions (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('hard-bounce', 'complaint', 'unsubscribe', 'manual')),
  detail text NOT NULL DEFAULT '',
  message_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, email)
);

-- Fixed UTC windows per API key (docs/contract.md §6).
CREATE TABLE limit_counters (
  api_key_id uuid NOT NULL,
  window_kind text NOT NULL CHECK (window_kind IN ('minute', 'hour', 'day')),
  window_start bigint NOT NULL,
  used integer NOT NULL,
  PRIMARY KEY (api_key_id, window_kind, window_start)
);

CREATE TABLE staff_users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL UNIQUE,
  name text NOT NULL DEFAULT '',
  role text NOT NULL CHECK (role IN ('admin', 'support', 'marketing')),
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz
);

-- What the sandbox MX received, for the dashboard's sandbox inbox.
CREATE TABLE sandbox_messages (
  id bigserial PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now(),
  mail_from text NOT NULL DEFAULT '',
  rcpt_to text[] NOT NULL,
  subject text NOT NULL DEFAULT '',
  message_id_header text NOT NULL DEFAULT '',
  mailroom_message_id uuid,
  size integer NOT NULL,
  raw bytea NOT NULL
);
CREATE INDEX sandbox_messages_received ON sandbox_messages (received_at DESC, id DESC);
CREATE INDEX sandbox_messages_message ON sandbox_messages (mailroom_message_id);
