import type { Queryable } from "./database";

/**
 * The statements of TLS-RPT (RFC 8460, docs/adr/0328): the daily session
 * counts that delivery's worker processes add to, and the reports sent per
 * policy domain, day and rua (lib/delivery/tls-reports, lib/maintenance/tls-reports.ts).
 */

/** One key's increment: what RFC 8460 §4.4 reports apart, and how many sessions more. */
export interface TlsCountIncrement {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  policyDomain: string;
  /** A digest of the whole key (the table's unique key). */
  sessionKey: string;
  policyType: "sts" | "tlsa" | "no-policy-found";
  policyString: string[];
  mxHost: string;
  /** "" for successful sessions. */
  resultType: string;
  receivingIp: string;
  sendingIp: string;
  additionalInformation: string;
  count: number;
}

export type TlsCountRow = Omit<TlsCountIncrement, "day" | "sessionKey">;

/** Adds the increments, one statement (the keys are distinct: one row each). */
export async function upsertTlsSessionCounts(q: Queryable, increments: TlsCountIncrement[]): Promise<void> {
  if (increments.length === 0) return;
  const json = JSON.stringify(
    increments.map((i) => ({
      day: i.day,
      policy_domain: i.policyDomain,
      session_key: i.sessionKey,
      policy_type: i.policyType,
      policy_string: i.policyString,
      mx_host: i.mxHost,
      result_type: i.resultType,
      receiving_ip: i.receivingIp,
      sending_ip: i.sendingIp,
      additional_information: i.additionalInformation,
      n: i.count,
    })),
  );
  await q.query(
    `INSERT INTO tls_session_counts AS c (day, policy_domain, session_key, policy_type, policy_string, mx_host, result_type, receiving_ip, sending_ip, additional_information, session_count)
     SELECT day, policy_domain, session_key, policy_type, policy_string, mx_host, result_type, receiving_ip, sending_ip, additional_information, n
       FROM jsonb_to_recordset($1::jsonb) AS x(day date, policy_domain text, session_key text, policy_type text, policy_string jsonb, mx_host text,
                                              result_type text, receiving_ip text, sending_ip text, additional_information text, n bigint)
     ON CONFLICT (day, policy_domain, session_key) DO UPDATE SET session_count = c.session_count + EXCLUDED.session_count`,
    [json],
  );
}

/**
 * The policy domains with sessions on `day` whose report is not yet sent
 * everywhere: none claimed yet, or one rua's failed or being sent (a domain
 * whose every claimed rua is sent is done; a rua its record gains later is not sent).
 */
export async function selectTlsReportDomains(q: Queryable, day: string, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ policy_domain: string }>(
    `SELECT DISTINCT c.policy_domain FROM tls_session_counts c
      WHERE c.day = $1::date
        AND (NOT EXISTS (SELECT 1 FROM tls_reports_sent s WHERE s.policy_domain = c.policy_domain AND s.day = c.day)
             OR EXISTS (SELECT 1 FROM tls_reports_sent s WHERE s.policy_domain = c.policy_domain AND s.day = c.day AND s.status <> 'sent'))
      ORDER BY c.policy_domain LIMIT $2`,
    [day, limit],
  );
  return rows.map((r) => r.policy_domain);
}

/** Every counted key of one policy domain and day. */
export async function selectTlsSessionCounts(q: Queryable, day: string, policyDomain: string, limit = 10_000): Promise<TlsCountRow[]> {
  const { rows } = await q.query<{
    policy_domain: string;
    policy_type: TlsCountRow["policyType"];
    policy_string: string[];
    mx_host: string;
    result_type: string;
    receiving_ip: string;
    sending_ip: string;
    additional_information: string;
    session_count: string;
  }>(
    `SELECT policy_domain, policy_type, policy_string, mx_host, result_type, receiving_ip, sending_ip, additional_information, session_count
       FROM tls_session_counts WHERE day = $1::date AND policy_domain = $2
      ORDER BY policy_type, mx_host, result_type, receiving_ip, sending_ip, session_key LIMIT $3`,
    [day, policyDomain, limit],
  );
  return rows.map((r) => ({
    policyDomain: r.policy_domain,
    policyType: r.policy_type,
    policyString: r.policy_string,
    mxHost: r.mx_host,
    resultType: r.result_type,
    receivingIp: r.receiving_ip,
    sendingIp: r.sending_ip,
    additionalInformation: r.additional_information,
    count: Number(r.session_count),
  }));
}

/**
 * Claims the report of (domain, day, rua) for this run: true when this
 * caller is to send it (new, failed before with attempts left, or
 * 'sending' for longer than staleSeconds: its sender died).
 */
export async function claimTlsReport(
  q: Queryable,
  claim: { policyDomain: string; day: string; rua: string; reportId: string; staleSeconds: number; maxAttempts: number },
): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO tls_reports_sent AS s (policy_domain, day, rua, report_id, status) VALUES ($1, $2::date, $3, $4, 'sending')
     ON CONFLICT (policy_domain, day, rua) DO UPDATE SET status = 'sending', attempts = s.attempts + 1, updated_at = now()
      WHERE s.attempts < $6 AND (s.status = 'failed' OR (s.status = 'sending' AND s.updated_at < now() - make_interval(secs => $5)))
     RETURNING 1`,
    [claim.policyDomain, claim.day, claim.rua, claim.reportId, claim.staleSeconds, claim.maxAttempts],
  );
  return rows.length > 0;
}

/** The claimed report's outcome. */
export async function finishTlsReport(q: Queryable, r: { policyDomain: string; day: string; rua: string; status: "sent" | "failed"; detail: string }): Promise<void> {
  await q.query(`UPDATE tls_reports_sent SET status = $4, detail = $5, updated_at = now() WHERE policy_domain = $1 AND day = $2::date AND rua = $3`, [
    r.policyDomain,
    r.day,
    r.rua,
    r.status,
    r.detail.slice(0, 1000),
  ]);
}

/** The reports of a domain and day, for the CLI and tests. */
export async function selectTlsReportsSent(q: Queryable, day: string): Promise<{ policyDomain: string; rua: string; reportId: string; status: string; detail: string; attempts: number }[]> {
  const { rows } = await q.query<{ policy_domain: string; rua: string; report_id: string; status: string; detail: string; attempts: number }>(
    `SELECT policy_domain, rua, report_id, status, detail, attempts FROM tls_reports_sent WHERE day = $1::date ORDER BY policy_domain, rua`,
    [day],
  );
  return rows.map((r) => ({ policyDomain: r.policy_domain, rua: r.rua, reportId: r.report_id, status: r.status, detail: r.detail, attempts: r.attempts }));
}

/** Drops the counts and report records of days before `beforeDay`. */
export async function purgeTlsReportDays(q: Queryable, beforeDay: string): Promise<{ counts: number; reports: number }> {
  const counts = await q.query(`DELETE FROM tls_session_counts WHERE day < $1::date`, [beforeDay]);
  const reports = await q.query(`DELETE FROM tls_reports_sent WHERE day < $1::date`, [beforeDay]);
  return { counts: counts.rowCount ?? 0, reports: reports.rowCount ?? 0 };
}
