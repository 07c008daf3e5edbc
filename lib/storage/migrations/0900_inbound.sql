-- Inbound mail (docs/contract.md §13, docs/adr/0800). A route sends mail for
-- an exact address or a whole domain (`*@domain`) of an account to its URL;
-- each accepted recipient of a received message is one inbound_messages row,
-- committed (raw MIME included) before the SMTP server answers 250. The raw
-- MIME is kept until `expires_at` (MAILROOM_INBOUND_RETENTION), then the
-- maintenance job deletes the row and its attempts.
CREATE TABLE inbound_routes (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- Lowercase `local@domain` or `*@domain` (domain in its ASCII form).
  match text NOT NULL CHECK (length(match) BETWEEN 3 AND 320),
  webhook_url text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- One route per pattern across the instance: the server must know whose mail it is.
CREATE UNIQUE INDEX inbound_routes_match ON inbound_routes (match);
CREATE INDEX inbound_routes_account ON inbound_routes (account_id, id);

CREATE TABLE inbound_messages (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- The route it matched (null once the route is deleted: the message stays readable).
  route_id bigint REFERENCES inbound_routes (id) ON DELETE SET NULL,
  webhook_url text NOT NULL,
  -- The envelope: RCPT TO as given, MAIL FROM, the client's address and HELO (for SPF).
  original_recipient text NOT NULL,
  mailbox_hash text NOT NULL DEFAULT '',
  mail_from text NOT NULL DEFAULT '',
  remote_ip text NOT NULL DEFAULT '',
  helo text NOT NULL DEFAULT '',
  subject text NOT NULL DEFAULT '',
  from_email text NOT NULL DEFAULT '',
  size integer NOT NULL,
  raw bytea NOT NULL,
  -- The Postmark-shaped JSON posted to the route, built once by the first post.
  payload jsonb,
  replied_to_message_id uuid,
  -- pending → delivered | failed (receiver refused with 403/406, retries exhausted).
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  received_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX inbound_messages_account_received ON inbound_messages (account_id, received_at DESC, id);
CREATE INDEX inbound_messages_expires ON inbound_messages (expires_at);

CREATE TABLE inbound_attempts (
  id bigserial PRIMARY KEY,
  inbound_message_id uuid NOT NULL REFERENCES inbound_messages (id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  duration_ms integer NOT NULL DEFAULT 0,
  -- HTTP status; 0 when no answer (timeout, refused connection, SSRF guard).
  status_code integer NOT NULL DEFAULT 0,
  -- At most 4 KB of the answer's body.
  body text NOT NULL DEFAULT '' CHECK (octet_length(body) <= 4096),
  error text
);
CREATE INDEX inbound_attempts_message ON inbound_attempts (inbound_message_id, id);
