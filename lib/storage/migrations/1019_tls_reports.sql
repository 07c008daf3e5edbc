-- TLS-RPT (RFC 8460), docs/adr/0328-tls-rpt-daily-reports.md.
--
-- tls_session_counts: the TLS sessions of outbound delivery towards a policy
-- domain, counted per UTC day and per what RFC 8460 §4.4 reports apart: the
-- policy (type and strings), the MX host, and for a failure its result type,
-- receiving and sending addresses and additional information. A success has
-- result_type ''. Each worker process adds its increments every few seconds
-- with one upsert (lib/delivery/tls-reports/session-counter.ts); session_key
-- is a digest of the whole key, so the unique key stays small whatever the
-- policy strings' length.
CREATE TABLE tls_session_counts (
  day date NOT NULL,
  policy_domain text NOT NULL,
  session_key text NOT NULL,
  policy_type text NOT NULL CHECK (policy_type IN ('sts', 'tlsa', 'no-policy-found')),
  policy_string jsonb NOT NULL,
  mx_host text NOT NULL,
  result_type text NOT NULL,
  receiving_ip text NOT NULL,
  sending_ip text NOT NULL,
  additional_information text NOT NULL,
  session_count bigint NOT NULL CHECK (session_count >= 0),
  PRIMARY KEY (day, policy_domain, session_key)
);

-- The reports sent (or being sent) per policy domain, day and rua: the
-- primary key makes one claim win across processes; a failed one is claimed
-- again by a later run, a 'sending' one only once it is stale (its process
-- died). Both tables lose their days past 30 in the report job.
CREATE TABLE tls_reports_sent (
  policy_domain text NOT NULL,
  day date NOT NULL,
  rua text NOT NULL,
  report_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('sending', 'sent', 'failed')),
  detail text NOT NULL DEFAULT '',
  attempts integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (policy_domain, day, rua)
);
CREATE INDEX tls_reports_sent_day ON tls_reports_sent (day);
