-- The sign-in throttle (docs/adr/0504) and engagement repeats (docs/adr/0306).

-- Failed staff sign-ins (lib/domain/staff/sign-in-throttle.ts, docs/adr/0504): one row
-- per attempt that was let through to the password check and failed (a row is
-- reserved before the check and removed when it succeeds). Counted per email
-- and per client address over the last 15 minutes; purged by maintenance.
CREATE TABLE sign_in_failures (
  id bigserial PRIMARY KEY,
  email text NOT NULL,
  address text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_email ON sign_in_failures (email, failed_at);
CREATE INDEX sign_in_failures_address ON sign_in_failures (address, failed_at);
CREATE INDEX sign_in_failures_failed_at ON sign_in_failures (failed_at);

-- Repeated opens and clicks of one copy (lib/domain/events/recipient-events.ts,
-- docs/adr/0306): one row per recipient, kind and link (md5 of the
-- URL; '' for opens). `window_start` is the time of the last logged event;
-- loads within the window only count (`hits`), later ones log a new event
-- (`logged`). Rows go with their recipient (ON DELETE CASCADE).
CREATE TABLE engagement_windows (
  recipient_id bigint NOT NULL REFERENCES message_recipients (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('opened', 'clicked')),
  link_key text NOT NULL,
  window_start timestamptz NOT NULL,
  hits bigint NOT NULL DEFAULT 1,
  logged bigint NOT NULL DEFAULT 1,
  PRIMARY KEY (recipient_id, kind, link_key)
);
