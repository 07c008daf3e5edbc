import { setImmediate as nextTurn } from "node:timers/promises";
import { Parser } from "htmlparser2";

/**
 * Reads a DMARC aggregate report's XML (RFC 7489 Appendix C) with
 * htmlparser2's tokenizer in XML mode: linear time, no DTD read, no entity
 * but the five predefined and numeric references ever expanded
 * (docs/adr/0809). A document with a DOCTYPE or any other `<!` declaration
 * is refused outright (an entity definition is the billion-laughs attack).
 * The text is fed in slices, one per turn of the event loop, and the walk
 * stops at the first bound passed: nesting depth, elements, records.
 */

export interface AggregateLimits {
  maxDepth: number;
  maxElements: number;
  maxRecords: number;
}

/** The schema nests 5 deep; a report of 20,000 records is far past any reporter's (they split by day and domain). */
export const AGGREGATE_LIMITS: AggregateLimits = { maxDepth: 16, maxElements: 500_000, maxRecords: 20_000 };

export interface AggregateRecord {
  sourceIp: string;
  count: number;
  disposition: "none" | "quarantine" | "reject";
  /** policy_evaluated: DKIM and SPF as DMARC judged them (aligned and passing). */
  dkimAligned: boolean;
  spfAligned: boolean;
  /** auth_results: the raw results (the first DKIM signature's, the SPF check's). */
  dkimResult: string;
  spfResult: string;
  headerFrom: string;
}

export interface AggregateReport {
  orgName: string;
  email: string;
  reportId: string;
  /** Unix seconds. */
  begin: number;
  end: number;
  domain: string;
  policy: string;
  records: AggregateRecord[];
}

export class AggregateReportError extends Error {}

/** Characters kept of one element's text (an IPv6 address is 45; a report id or org name a few dozen). */
const MAX_TEXT = 512;
/** Text parsed per turn of the event loop: about 2 ms of work (docs/adr/0809). */
const SLICE = 16 * 1024;
const DISPOSITIONS = new Set(["none", "quarantine", "reject"]);

const emptyRecord = (): AggregateRecord => ({ sourceIp: "", count: 0, disposition: "none", dkimAligned: false, spfAligned: false, dkimResult: "none", spfResult: "none", headerFrom: "" });

/** The report in `xml` (UTF-8), or an AggregateReportError that says which bound or field failed. */
export async function parseAggregateReport(xml: Buffer, limits: AggregateLimits = AGGREGATE_LIMITS): Promise<AggregateReport> {
  const report: AggregateReport = { orgName: "", email: "", reportId: "", begin: NaN, end: NaN, domain: "", policy: "", records: [] };
  // The open elements' names joined by "/", kept as one string: a join per closing tag was most of the walk's garbage.
  let path = "";
  let depth = 0;
  let elements = 0;
  let text = "";
  let record = emptyRecord();
  let seenDkim = false;
  let seenSpf = false;

  const leaf = (at: string, value: string) => {
    switch (at) {
      case "feedback/report_metadata/org_name": return void (report.orgName = value);
      case "feedback/report_metadata/email": return void (report.email = value);
      case "feedback/report_metadata/report_id": return void (report.reportId = value);
      case "feedback/report_metadata/date_range/begin": return void (report.begin = Number(value));
      case "feedback/report_metadata/date_range/end": return void (report.end = Number(value));
      case "feedback/policy_published/domain": return void (report.domain = value.toLowerCase().replace(/\.$/, ""));
      case "feedback/policy_published/p": return void (report.policy = value.toLowerCase());
      case "feedback/record/row/source_ip": return void (record.sourceIp = value);
      case "feedback/record/row/count": return void (record.count = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN);
      case "feedback/record/row/policy_evaluated/disposition": return void (record.disposition = (DISPOSITIONS.has(value.toLowerCase()) ? value.toLowerCase() : "none") as AggregateRecord["disposition"]);
      case "feedback/record/row/policy_evaluated/dkim": return void (record.dkimAligned = value.toLowerCase() === "pass");
      case "feedback/record/row/policy_evaluated/spf": return void (record.spfAligned = value.toLowerCase() === "pass");
      case "feedback/record/identifiers/header_from": return void (record.headerFrom = value.toLowerCase());
      case "feedback/record/auth_results/dkim/result":
        if (!seenDkim) record.dkimResult = value.toLowerCase();
        seenDkim = true;
        return;
      case "feedback/record/auth_results/spf/result":
        if (!seenSpf) record.spfResult = value.toLowerCase();
        seenSpf = true;
        return;
    }
  };

  const parser = new Parser(
    {
      onprocessinginstruction(name) {
        // `<?xml …?>` is fine; `<!DOCTYPE`, `<!ENTITY` and every other declaration are not read, ever.
        if (name.startsWith("!")) throw new AggregateReportError("a DTD or declaration in the report (refused, never expanded)");
      },
      onopentag(name) {
        if (++elements > limits.maxElements) throw new AggregateReportError(`more than ${limits.maxElements} XML elements`);
        if (++depth > limits.maxDepth) throw new AggregateReportError(`XML nested more than ${limits.maxDepth} deep`);
        path = depth === 1 ? name.toLowerCase() : `${path}/${name.toLowerCase()}`;
        if (path === "feedback/record") {
          if (report.records.length >= limits.maxRecords) throw new AggregateReportError(`more than ${limits.maxRecords} records`);
          record = emptyRecord();
          seenDkim = seenSpf = false;
        }
        text = "";
      },
      ontext(chunk) {
        if (text.length < MAX_TEXT) text += chunk.slice(0, MAX_TEXT - text.length);
      },
      onclosetag() {
        if (depth === 0) return;
        if (text) leaf(path, text.trim());
        if (path === "feedback/record") {
          if (!record.sourceIp || !Number.isFinite(record.count)) throw new AggregateReportError("a record without source_ip or count");
          report.records.push(record);
        }
        depth--;
        path = path.slice(0, Math.max(0, path.lastIndexOf("/")));
        text = "";
      },
    },
    { xmlMode: true, decodeEntities: true },
  );

  const decoder = new TextDecoder("utf-8", { fatal: false });
  for (let at = 0; at < xml.length; at += SLICE) {
    if (at > 0) await nextTurn();
    parser.write(decoder.decode(xml.subarray(at, at + SLICE), { stream: true }));
  }
  parser.end(decoder.decode());

  if (!report.domain) throw new AggregateReportError("no policy_published domain");
  if (!report.reportId) throw new AggregateReportError("no report_id");
  if (!Number.isFinite(report.begin) || !Number.isFinite(report.end)) throw new AggregateReportError("no date_range");
  return report;
}

/** The reporting organisation as the API names it: its email's domain (noreply-dmarc-support@google.com → google.com), else its org_name. */
export function reporterOf(report: Pick<AggregateReport, "orgName" | "email">): string {
  const at = report.email.lastIndexOf("@");
  return (at >= 0 ? report.email.slice(at + 1) : report.orgName).trim().toLowerCase().slice(0, 253) || "unknown";
}
