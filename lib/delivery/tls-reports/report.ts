import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { TlsCountRow } from "../../storage/tls-report-rows";

/**
 * A TLS-RPT aggregate report (RFC 8460 §4.4) of one policy domain and UTC
 * day, from its counted rows (lib/storage/tls-report-rows.ts), pure; then
 * its gzip and its file name (§5.3). A policy entry per (policy type,
 * policy strings, MX host), its failures one detail each.
 */

export interface TlsReportFailureDetail {
  "result-type": string;
  "sending-mta-ip"?: string;
  "receiving-mx-hostname"?: string;
  "receiving-ip"?: string;
  "failed-session-count": number;
  "additional-information"?: string;
}

export interface TlsReportPolicy {
  policy: { "policy-type": string; "policy-string": string[]; "policy-domain": string; "mx-host"?: string };
  summary: { "total-successful-session-count": number; "total-failure-session-count": number };
  "failure-details"?: TlsReportFailureDetail[];
}

export interface TlsReport {
  "organization-name": string;
  "date-range": { "start-datetime": string; "end-datetime": string };
  "contact-info": string;
  "report-id": string;
  policies: TlsReportPolicy[];
}

export interface TlsReportInput {
  organization: string;
  contact: string;
  reportId: string;
  policyDomain: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  rows: TlsCountRow[];
}

/** The UTC day's first and last second (RFC 8460's example ends a day at 23:59:59Z). */
export function dayRange(day: string): { start: Date; end: Date } {
  const start = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== day) throw new Error(`not a day: ${day}`);
  return { start, end: new Date(start.getTime() + 86_400_000 - 1000) };
}

/** RFC 3339 without milliseconds. */
const rfc3339 = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/** The report's id: the day, the domain and the submitter, so that every process names a domain-day's report alike. */
export function reportIdOf(day: string, policyDomain: string, submitter: string): string {
  return `${day}.${policyDomain}@${submitter}`;
}

export function buildTlsReport(input: TlsReportInput): TlsReport {
  const { start, end } = dayRange(input.day);
  const policies = new Map<string, TlsReportPolicy>();
  for (const row of input.rows) {
    const key = JSON.stringify([row.policyType, row.policyString, row.mxHost]);
    let entry = policies.get(key);
    if (!entry) {
      entry = {
        policy: {
          "policy-type": row.policyType,
          "policy-string": row.policyString,
          "policy-domain": input.policyDomain,
          ...(row.mxHost !== "" && { "mx-host": row.mxHost }),
        },
        summary: { "total-successful-session-count": 0, "total-failure-session-count": 0 },
      };
      policies.set(key, entry);
    }
    if (row.resultType === "") {
      entry.summary["total-successful-session-count"] += row.count;
      continue;
    }
    entry.summary["total-failure-session-count"] += row.count;
    (entry["failure-details"] ??= []).push({
      "result-type": row.resultType,
      ...(row.sendingIp !== "" && { "sending-mta-ip": row.sendingIp }),
      ...(row.mxHost !== "" && { "receiving-mx-hostname": row.mxHost }),
      ...(row.receivingIp !== "" && { "receiving-ip": row.receivingIp }),
      "failed-session-count": row.count,
      ...(row.additionalInformation !== "" && { "additional-information": row.additionalInformation }),
    });
  }
  return {
    "organization-name": input.organization,
    "date-range": { "start-datetime": rfc3339(start), "end-datetime": rfc3339(end) },
    "contact-info": input.contact,
    "report-id": input.reportId,
    policies: [...policies.values()],
  };
}

/** `<sender>!<policy-domain>!<begin-timestamp>!<end-timestamp>.json.gz`, the timestamps in seconds since the epoch (RFC 8460 §5.3). */
export function reportFileName(submitter: string, policyDomain: string, day: string): string {
  const { start, end } = dayRange(day);
  return `${submitter}!${policyDomain}!${start.getTime() / 1000}!${end.getTime() / 1000}.json.gz`;
}

const gzipAsync = promisify(gzip);

/** The report's JSON, gzip-compressed (on libuv's thread pool, not the event loop). */
export async function gzipReport(report: TlsReport): Promise<Buffer> {
  return gzipAsync(Buffer.from(JSON.stringify(report), "utf8"));
}
