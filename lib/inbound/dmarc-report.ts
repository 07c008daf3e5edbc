import type { AppContext } from "../context";
import { AggregateReportError, parseAggregateReport } from "../domain/dmarc/aggregate-xml";
import { storeAggregateReport } from "../domain/dmarc/store-report";
import { attachmentKindOf, unpackReport, UnpackError, type AttachmentKind } from "../domain/dmarc/unpack";
import { sendingAddresses } from "../domain/accounts/domain-health/run-checks";
import { mimeLimitViolation } from "./mime-limits";
import { decodeBody, parseContentType, parseFieldGroups, splitHead, splitMultipart } from "./report-parser";

/**
 * DMARC aggregate reports (RFC 7489 §7.2) sent to `dmarc@<bounce domain>`,
 * the `rua=` of the DMARC record the domain checks suggest (docs/adr/0809).
 * The message's MIME structure is bounded first (docs/adr/0802's limits),
 * then its first report attachment (gzip, zip or XML, at the top or one or
 * two multipart levels down) is unpacked within the caps and read by the
 * bounded parser; the report is stored for the accounts that verified its
 * domain. A report over a bound is refused with a 554 (the reporter's
 * problem, never retried); one for a domain nobody verified is dropped.
 */

export const DMARC_LOCAL_PART = "dmarc";

export type DmarcOutcome =
  | { kind: "dmarc"; domain: string; records: number }
  | { kind: "dropped"; why: string }
  | { kind: "refused"; why: string };

/** Whether the recipient is the DMARC report address (its local part; the domain is a bounce domain, checked at RCPT). */
export function isDmarcAddress(address: string): boolean {
  const at = address.lastIndexOf("@");
  return at > 0 && address.slice(0, at).toLowerCase() === DMARC_LOCAL_PART;
}

interface Attachment {
  kind: AttachmentKind;
  body: Buffer;
}

/** `body` as sent (decoded here) or, for splitMultipart's parts, already decoded (`decoded`). */
function attachmentOf(headers: Map<string, string>, body: Buffer, decoded = false): Attachment | undefined {
  const { type, params } = parseContentType(headers.get("content-type"));
  const disposition = parseContentType(headers.get("content-disposition") ?? "attachment");
  const kind = attachmentKindOf(type, disposition.params.filename ?? params.name ?? "");
  return kind ? { kind, body: decoded ? body : decodeBody(body, headers.get("content-transfer-encoding")) } : undefined;
}

/** The first report attachment: the message itself, or a part at most two multipart levels down. */
export function findReportAttachment(raw: Buffer): Attachment | undefined {
  const { head, body } = splitHead(raw);
  const top = attachmentOf(parseFieldGroups(head)[0] ?? new Map(), body);
  if (top) return top;
  const levels = [raw];
  for (let depth = 0; depth < 2 && levels.length; depth++) {
    const next: Buffer[] = [];
    for (const entity of levels) {
      for (const part of splitMultipart(entity).parts) {
        if (part.contentType.startsWith("multipart/") && part.params.boundary) {
          next.push(Buffer.concat([Buffer.from(`Content-Type: ${part.contentType}; boundary="${part.params.boundary}"\r\n\r\n`), part.body]));
          continue;
        }
        const found = attachmentOf(part.headers, part.body, true);
        if (found) return found;
      }
    }
    levels.splice(0, levels.length, ...next);
  }
  return undefined;
}

export async function handleDmarcReport(ctx: AppContext, raw: Buffer, from: string): Promise<DmarcOutcome> {
  const refuse = (why: string): DmarcOutcome => {
    ctx.log.warn({ from, reason: why }, "DMARC report refused");
    return { kind: "refused", why };
  };
  const violation = await mimeLimitViolation(raw);
  if (violation) return refuse(violation);
  const attachment = findReportAttachment(raw);
  if (!attachment) return refuse("no gzip, zip or XML report attached");
  let report;
  try {
    report = await parseAggregateReport(await unpackReport(attachment.kind, attachment.body));
  } catch (err) {
    if (err instanceof UnpackError || err instanceof AggregateReportError) return refuse(err.message);
    throw err;
  }
  const instance = await sendingAddresses(ctx.domainLookup, ctx.config.delivery.heloName);
  const outcome = await storeAggregateReport(ctx.database, report, instance);
  if (outcome.kind === "unattributed") {
    ctx.log.warn({ from, domain: report.domain, reportId: report.reportId, org: report.orgName }, "DMARC report dropped: no account verified its domain");
    return { kind: "dropped", why: `no account verified ${report.domain}` };
  }
  if (outcome.kind === "duplicate") return { kind: "dropped", why: "the report was stored already (sent again)" };
  return { kind: "dmarc", domain: report.domain, records: outcome.records };
}
