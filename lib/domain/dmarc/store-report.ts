import { setImmediate as nextTurn } from "node:timers/promises";
import ipaddr from "ipaddr.js";
import type { Database } from "../../storage/database";
import { insertDmarcReport, insertDmarcRows, selectVerifiedOwners, type DmarcRowInsert } from "../../storage/dmarc-rows";
import { withTransaction } from "../../storage/transaction";
import type { AggregateReport } from "./aggregate-xml";
import { reporterOf } from "./aggregate-xml";

/**
 * A parsed aggregate report stored for each account that verified its
 * policy domain (docs/adr/0809), under the UTC day its date range begins.
 * A report for a domain no account verified is dropped (the caller logs
 * it); one sent again is stored once. Each record says whether its source
 * address is one of the instance's sending addresses (the A/AAAA of its EHLO
 * name, as the SPF health check takes them): `false` flags another sender
 * using the domain.
 */

export type StoreReportOutcome =
  | { kind: "stored"; accounts: string[]; records: number }
  | { kind: "duplicate" }
  | { kind: "unattributed"; domain: string };

/** An address in one spelling (IPv4-mapped IPv6 as IPv4, IPv6 compressed), or the text as given when it is not one. */
export function canonicalIp(text: string): string {
  try {
    const parsed = ipaddr.parse(text.trim());
    return (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed).toString();
  } catch {
    return text.trim().slice(0, 64);
  }
}

const ROWS_PER_TURN = 1000;
const ROWS_PER_STATEMENT = 2000;

const dayOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().slice(0, 10);
/** Unix seconds outside 1970–9999 are not a date anyone sends; they are clamped so the day stays a date. */
const clampSeconds = (s: number) => Math.min(Math.max(Math.trunc(s), 0), 253402300799);

export async function storeAggregateReport(database: Database, report: AggregateReport, instanceAddresses: readonly string[]): Promise<StoreReportOutcome> {
  const owners = await selectVerifiedOwners(database, report.domain);
  if (!owners.length) return { kind: "unattributed", domain: report.domain };
  const known = new Set(instanceAddresses.map(canonicalIp));
  const begin = clampSeconds(report.begin);
  const end = clampSeconds(report.end);
  const rows: DmarcRowInsert[] = [];
  // In steps of ROWS_PER_TURN: 20,000 records parsed and serialised at once held the event loop past the stall budget.
  for (const r of report.records) {
    if (rows.length > 0 && rows.length % ROWS_PER_TURN === 0) await nextTurn();
    const sourceIp = canonicalIp(r.sourceIp);
    rows.push({
      sourceIp,
      count: r.count,
      disposition: r.disposition,
      spfResult: r.spfResult.slice(0, 32),
      dkimResult: r.dkimResult.slice(0, 32),
      spfAligned: r.spfAligned,
      dkimAligned: r.dkimAligned,
      knownSource: known.has(sourceIp),
    });
  }
  const stored = await withTransaction(database, async (tx) => {
    const accounts: string[] = [];
    for (const accountId of owners) {
      const id = await insertDmarcReport(tx, {
        accountId,
        domain: report.domain,
        day: dayOf(begin),
        orgName: report.orgName.slice(0, 253),
        reporter: reporterOf(report),
        reportId: report.reportId.slice(0, 255),
        dateBegin: new Date(begin * 1000),
        dateEnd: new Date(end * 1000),
        policy: report.policy.slice(0, 32),
      });
      if (id === undefined) continue;
      for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) await insertDmarcRows(tx, id, rows.slice(at, at + ROWS_PER_STATEMENT));
      accounts.push(accountId);
    }
    return accounts;
  });
  return stored.length ? { kind: "stored", accounts: stored, records: rows.length } : { kind: "duplicate" };
}
