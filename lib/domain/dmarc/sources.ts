import { MAX_DMARC_SOURCES, type DmarcResponse } from "../../contract/dmarc";
import type { Queryable } from "../../storage/database";
import { selectDmarcSources } from "../../storage/dmarc-rows";
import { findSenderDomain } from "../accounts/sender-domains";

/**
 * The DMARC sources of an account's sender domain over its last `days` UTC
 * days (today included), summed by source address, largest first
 * (docs/adr/0809). Undefined when the account has no such domain: another
 * account's domain is not found, never shown.
 */
export async function dmarcSourcesOf(q: Queryable, accountId: string, domain: string, days: number, now = new Date()): Promise<DmarcResponse | undefined> {
  const row = await findSenderDomain(q, accountId, domain);
  if (!row) return undefined;
  const fromDay = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const { reports, sources } = await selectDmarcSources(q, accountId, row.name, fromDay, MAX_DMARC_SOURCES);
  return {
    Domain: row.name,
    Days: days,
    Reports: reports,
    Sources: sources.map((s) => ({
      SourceIp: s.source_ip,
      Count: s.count,
      SpfAligned: s.spf_aligned ?? 0,
      DkimAligned: s.dkim_aligned ?? 0,
      DmarcPass: s.dmarc_pass ?? 0,
      Disposition: { none: s.none ?? 0, quarantine: s.quarantine ?? 0, reject: s.reject ?? 0 },
      KnownSource: s.known_source,
      Reporters: s.reporters,
    })),
  };
}
