import type { AppContext } from "../context";
import { buildTlsReport, gzipReport, reportFileName, reportIdOf } from "../delivery/tls-reports/report";
import { reportEmail, TLSRPT_CONTENT_TYPE } from "../delivery/tls-reports/report-email";
import { parseTlsRptRecords, RECORD_BOUNDS, type Rua } from "../delivery/tls-reports/tlsrpt-record";
import { systemSender } from "../domain/accounts/system-sender";
import { ask } from "../domain/accounts/domain-health/dns-answers";
import { sendEmail } from "../domain/sending/send-email";
import { claimTlsReport, finishTlsReport, purgeTlsReportDays, selectTlsReportDomains, selectTlsSessionCounts } from "../storage/tls-report-rows";
import { postJson } from "../webhooks/http-post";
import type { MaintenanceJob } from "./maintenance-job";

/**
 * TLS-RPT's daily reports (RFC 8460, docs/adr/0328, docs/tls-reports.md):
 * for each UTC day ended (yesterday and the day before: a report that
 * failed is tried again at a later run), each policy domain with counted
 * sessions that day and a `_smtp._tls` record gets its report at each rua
 * once: by email through the instance's own sending path (the system
 * sender), or POSTed past the webhooks' SSRF guard. Counts and report
 * records older than RETENTION_DAYS are dropped here too.
 */

export const RETENTION_DAYS = 30;
/** Days ended that a run looks at (a report not sent by then is not sent). */
const LOOKBACK_DAYS = 2;
/** A claim left 'sending' this long belongs to a run that died. */
const STALE_CLAIM_SECONDS = 30 * 60;
const MAX_ATTEMPTS = 5;
const MAX_DOMAINS_PER_DAY = 1000;
const MAX_ROWS_PER_REPORT = 10_000;
/** The largest compressed report sent (the send path's attachment limit is 10 MB). */
const MAX_REPORT_BYTES = 5 * 1024 * 1024;
/** An https rua's whole exchange, at most. */
const POST_TIMEOUT_MS = 30_000;

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The days a run reports: `day` alone when given, else the last LOOKBACK_DAYS UTC days ended before `now`. */
export function reportDays(now: Date, day?: string): string[] {
  if (day) return [day];
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: LOOKBACK_DAYS }, (_, i) => dayOf(today - (i + 1) * DAY_MS));
}

/** The TXT answer's records, each one string, bounded before they are joined (longer ones dropped). */
function boundedTxt(values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values.slice(0, RECORD_BOUNDS.records)) {
    const chunks = Array.isArray(v) ? v : [v];
    let length = 0;
    for (const c of chunks) length += typeof c === "string" ? c.length : 0;
    if (length <= RECORD_BOUNDS.recordChars + 1) out.push(chunks.filter((c): c is string => typeof c === "string").join(""));
  }
  return out;
}

export interface TlsReportRun {
  days: number;
  domains: number;
  sent: number;
  failed: number;
  noRecord: number;
  lookupFailed: number;
  purgedCounts: number;
  purgedReports: number;
  [key: string]: number;
}

/** One run: the reports of `options.day` (the CLI's) or of the last days ended; what it did, in counts. */
export async function sendTlsReports(ctx: AppContext, options: { now?: Date; day?: string } = {}): Promise<TlsReportRun> {
  const now = options.now ?? new Date();
  const run: TlsReportRun = { days: 0, domains: 0, sent: 0, failed: 0, noRecord: 0, lookupFailed: 0, purgedCounts: 0, purgedReports: 0 };
  const settings = ctx.config.delivery.tlsReports;
  const purged = await purgeTlsReportDays(ctx.database, dayOf(now.getTime() - RETENTION_DAYS * DAY_MS));
  run.purgedCounts = purged.counts;
  run.purgedReports = purged.reports;
  if (!settings.enabled) return run;
  for (const day of reportDays(now, options.day)) {
    run.days++;
    for (const domain of await selectTlsReportDomains(ctx.database, day, MAX_DOMAINS_PER_DAY)) {
      run.domains++;
      const answer = await ask<unknown>(ctx.domainLookup, `_smtp._tls.${domain}`, "TXT");
      if (!answer.ok) {
        // Tried again at the next run (the rows stay).
        run.lookupFailed++;
        ctx.log.warn({ domain, day, error: answer.error }, "TLS-RPT: the _smtp._tls lookup failed");
        continue;
      }
      const record = parseTlsRptRecords(boundedTxt(answer.values), { allowHttp: ctx.config.webhooks.allowPrivate });
      if (!record.ok) {
        run.noRecord++;
        ctx.log.debug({ domain, day, reason: record.reason }, "TLS-RPT: no report asked for");
        continue;
      }
      const reportId = reportIdOf(day, domain, settings.submitter);
      let report: { gz: Buffer; fileName: string } | undefined;
      for (const rua of record.ruas) {
        const claimed = await claimTlsReport(ctx.database, { policyDomain: domain, day, rua: rua.uri, reportId, staleSeconds: STALE_CLAIM_SECONDS, maxAttempts: MAX_ATTEMPTS });
        if (!claimed) continue;
        let outcome: { ok: boolean; detail: string };
        try {
          report ??= {
            gz: await gzipReport(
              buildTlsReport({
                organization: settings.organization,
                contact: settings.contact,
                reportId,
                policyDomain: domain,
                day,
                rows: await selectTlsSessionCounts(ctx.database, day, domain, MAX_ROWS_PER_REPORT),
              }),
            ),
            fileName: reportFileName(settings.submitter, domain, day),
          };
          if (report.gz.length > MAX_REPORT_BYTES) outcome = { ok: false, detail: `report of ${report.gz.length} bytes compressed, over ${MAX_REPORT_BYTES}` };
          else if (rua.kind === "mailto") outcome = await mailReport(ctx, rua, domain, reportId, report);
          else outcome = await postReport(ctx, rua, report.gz);
        } catch (err) {
          outcome = { ok: false, detail: (err as Error).message };
        }
        await finishTlsReport(ctx.database, { policyDomain: domain, day, rua: rua.uri, status: outcome.ok ? "sent" : "failed", detail: outcome.detail });
        if (outcome.ok) run.sent++;
        else {
          run.failed++;
          ctx.log.warn({ domain, day, rua: rua.uri, detail: outcome.detail }, "TLS-RPT: the report could not be sent; tried again at the next run");
        }
      }
    }
  }
  return run;
}

async function mailReport(ctx: AppContext, rua: Extract<Rua, { kind: "mailto" }>, domain: string, reportId: string, report: { gz: Buffer; fileName: string }) {
  const sender = await systemSender(ctx.database, ctx.config.auth.invitationFrom);
  if (!sender) return { ok: false, detail: "no system sender: no default account key or From address (MAILROOM_INVITATION_FROM)" };
  const body = reportEmail({ from: sender.from, to: rua.address, domain, submitter: ctx.config.delivery.tlsReports.submitter, reportId, ...report });
  const result = await sendEmail(ctx, sender.key, body);
  if (!result.ok) return { ok: false, detail: `refused: ${JSON.stringify(result.errors).slice(0, 500)}` };
  return { ok: true, detail: `queued as message ${result.messageId}` };
}

async function postReport(ctx: AppContext, rua: Extract<Rua, { kind: "https" }>, gz: Buffer) {
  const result = await postJson(rua.url, gz, { "content-type": TLSRPT_CONTENT_TYPE }, { timeoutMs: POST_TIMEOUT_MS, allowPrivate: ctx.config.webhooks.allowPrivate });
  const ok = result.statusCode >= 200 && result.statusCode < 300;
  return { ok, detail: result.error ?? `HTTP ${result.statusCode}` };
}

/** A day given as YYYY-MM-DD (the CLI's `--day`, a tick's `day`), else undefined. */
export function parseReportDay(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length !== 10) return undefined;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value ? value : undefined;
}

/** The daily reports, a few runs a day (a report that failed is tried again at the next); a tick with `day` (`mailroom tls-reports send`) reports that day. */
export const tlsReports: MaintenanceJob = {
  name: "maintenance-tls-reports",
  cron: "23 */6 * * *",
  run: (ctx, now, data) => sendTlsReports(ctx, { now, day: parseReportDay(data?.day) }),
};
