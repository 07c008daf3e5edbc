import type { Queryable } from "./database";

/**
 * The reads and writes of received DMARC aggregate reports
 * (lib/domain/dmarc/store-report.ts decides what they mean; docs/adr/0809).
 */

export interface DmarcReportInsert {
  accountId: string;
  domain: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  orgName: string;
  reporter: string;
  reportId: string;
  dateBegin: Date;
  dateEnd: Date;
  policy: string;
}

export interface DmarcRowInsert {
  sourceIp: string;
  count: number;
  disposition: "none" | "quarantine" | "reject";
  spfResult: string;
  dkimResult: string;
  spfAligned: boolean;
  dkimAligned: boolean;
  knownSource: boolean;
}

/** The accounts that verified `domain` (each owns its reports). */
export async function selectVerifiedOwners(q: Queryable, domain: string): Promise<string[]> {
  const { rows } = await q.query<{ account_id: string }>(`SELECT account_id FROM sender_domains WHERE name = $1 AND status = 'verified' ORDER BY verified_at`, [domain]);
  return rows.map((r) => r.account_id);
}

/** The new report's id; undefined when that reporter's report of that id is stored already (a resend). */
export async function insertDmarcReport(q: Queryable, r: DmarcReportInsert): Promise<string | undefined> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO dmarc_reports (account_id, domain, day, org_name, reporter, report_id, date_begin, date_end, policy)
     VALUES ($1, $2, $3::date, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (account_id, domain, reporter, report_id) DO NOTHING RETURNING id`,
    [r.accountId, r.domain, r.day, r.orgName, r.reporter, r.reportId, r.dateBegin, r.dateEnd, r.policy],
  );
  return rows[0]?.id;
}

/** The report's records, in one statement of arrays (the caller sends a few thousand at a time). */
export async function insertDmarcRows(q: Queryable, reportId: string, rows: DmarcRowInsert[]): Promise<void> {
  if (!rows.length) return;
  await q.query(
    `INSERT INTO dmarc_report_rows (report_id, source_ip, count, disposition, spf_result, dkim_result, spf_aligned, dkim_aligned, known_source)
     SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::bool[], $8::bool[], $9::bool[])`,
    [
      reportId,
      rows.map((r) => r.sourceIp),
      rows.map((r) => r.count),
      rows.map((r) => r.disposition),
      rows.map((r) => r.spfResult),
      rows.map((r) => r.dkimResult),
      rows.map((r) => r.spfAligned),
      rows.map((r) => r.dkimAligned),
      rows.map((r) => r.knownSource),
    ],
  );
}

export interface DmarcSourceRow {
  source_ip: string;
  count: number;
  spf_aligned: number;
  dkim_aligned: number;
  dmarc_pass: number;
  none: number;
  quarantine: number;
  reject: number;
  known_source: boolean;
  reporters: string[];
}

/** The account's reports of `domain` from day `fromDay` on: how many, and their sources by count (at most `limit`). */
export async function selectDmarcSources(
  q: Queryable,
  accountId: string,
  domain: string,
  fromDay: string,
  limit: number,
): Promise<{ reports: number; sources: DmarcSourceRow[] }> {
  const [reports, sources] = await Promise.all([
    q.query<{ n: number }>(`SELECT count(*)::int AS n FROM dmarc_reports WHERE account_id = $1 AND domain = $2 AND day >= $3::date`, [accountId, domain, fromDay]),
    q.query<DmarcSourceRow>(
      `SELECT r.source_ip,
              sum(r.count)::int AS count,
              (sum(r.count) FILTER (WHERE r.spf_aligned))::int AS spf_aligned,
              (sum(r.count) FILTER (WHERE r.dkim_aligned))::int AS dkim_aligned,
              (sum(r.count) FILTER (WHERE r.spf_aligned OR r.dkim_aligned))::int AS dmarc_pass,
              (sum(r.count) FILTER (WHERE r.disposition = 'none'))::int AS none,
              (sum(r.count) FILTER (WHERE r.disposition = 'quarantine'))::int AS quarantine,
              (sum(r.count) FILTER (WHERE r.disposition = 'reject'))::int AS reject,
              bool_and(r.known_source) AS known_source,
              array_agg(DISTINCT d.reporter ORDER BY d.reporter) AS reporters
         FROM dmarc_reports d JOIN dmarc_report_rows r ON r.report_id = d.id
        WHERE d.account_id = $1 AND d.domain = $2 AND d.day >= $3::date
        GROUP BY r.source_ip
        ORDER BY count DESC, r.source_ip
        LIMIT $4`,
      [accountId, domain, fromDay, limit],
    ),
  ]);
  return { reports: reports.rows[0]?.n ?? 0, sources: sources.rows };
}

/** Reports of days past their account's event retention, with their rows (by the cascade); how many went. */
export async function deleteDmarcReportsPastRetention(q: Queryable, now: Date): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM dmarc_reports d USING accounts a
      WHERE a.id = d.account_id AND d.day < ($1::timestamptz - make_interval(days => a.retention_days))::date`,
    [now],
  );
  return rowCount ?? 0;
}
