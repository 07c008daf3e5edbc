-- DMARC aggregate reports (RFC 7489 §7.2) received at dmarc@<bounce domain>
-- (docs/adr/0809-dmarc-aggregate-reports.md): one row per report and account
-- that verified its policy domain, and its records, one per source address and
-- result, under the report's day (the UTC day its date range begins).
--
-- A report sent again (same reporter, same report id) is stored once: the
-- unique index makes the second insert a no-op. Rows go with their report; the
-- retention purge deletes the reports of days past the account's retention.
CREATE TABLE dmarc_reports (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain text NOT NULL,
  day date NOT NULL,
  org_name text NOT NULL,
  reporter text NOT NULL,
  report_id text NOT NULL,
  date_begin timestamptz NOT NULL,
  date_end timestamptz NOT NULL,
  policy text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dmarc_reports_once ON dmarc_reports (account_id, domain, reporter, report_id);
CREATE INDEX dmarc_reports_account_domain_day ON dmarc_reports (account_id, domain, day);

CREATE TABLE dmarc_report_rows (
  report_id bigint NOT NULL REFERENCES dmarc_reports (id) ON DELETE CASCADE,
  source_ip text NOT NULL,
  count integer NOT NULL CHECK (count >= 0),
  disposition text NOT NULL CHECK (disposition IN ('none', 'quarantine', 'reject')),
  spf_result text NOT NULL,
  dkim_result text NOT NULL,
  spf_aligned boolean NOT NULL,
  dkim_aligned boolean NOT NULL,
  known_source boolean NOT NULL
);
CREATE INDEX dmarc_report_rows_report ON dmarc_report_rows (report_id);
