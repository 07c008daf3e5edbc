import { randomBytes } from "node:crypto";
import type { Queryable } from "../../storage/database";
import {
  selectSenderDomainPage,
  trackingHostTaken,
  updateSenderDomainRow,
} from "../../storage/sender-domain-rows";
import { DomainError } from "../shared/domain-error";
import type { DnsLookup } from "./domain-health/dns-answers";
import type { HealthCheck } from "./domain-health/check-result";
import { runHealthChecks } from "./domain-health/run-checks";
import {
  addSenderDomain,
  deleteSenderDomain,
  dnsRecordsFor,
  findSenderDomain,
  generateDkimKeyPair,
  listSenderDomains,
  normalizeDomainName,
  returnPathDomainOf,
  type DnsRecord,
  type SenderDomainRow,
} from "./sender-domains";

/**
 * The sender domains' use cases, one implementation for the API
 * (lib/api/routes/domains.ts), the CLI (cli/commands/domains.ts) and the
 * dashboard's settings (lib/dashboard/settings.ts), docs/adr/0134: add, list,
 * read, check (verification, health, a rotation's switch, the tracking
 * domain), delete, rotate the DKIM key, set the tracking domain.
 */

export interface DomainDeps {
  database: Queryable;
  /** The health checks' DNS (MAILROOM_DNS_SERVERS or the system's). */
  lookup: DnsLookup;
  /** MAILROOM_HELO_NAME: the instance's name in EHLO, its sending addresses' A/AAAA, the MX target. */
  heloName: string;
  /** MAILROOM_BOUNCE_DOMAIN, if set. */
  bounceDomain?: string;
  /** The public URL's host: tracking domains are CNAMEs to it. */
  trackingTarget: string;
  /** How long a rotated-out DKIM selector stays published (MAILROOM_DKIM_OLD_SELECTOR_DAYS). */
  dkimPreviousDays: number;
}

/** How long a rotated-out selector stays published by default: a week covers a message's retries and late verifications. */
export const DEFAULT_DKIM_PREVIOUS_DAYS = 7;

/** The dependencies from a process's configuration (the API, the CLI, the dashboard and the daily run take the same). */
export function domainDepsFrom(o: {
  database: Queryable;
  lookup: DnsLookup;
  publicUrl: string;
  delivery: { heloName: string; bounceDomain?: string; dkimOldSelectorDays?: number };
}): DomainDeps {
  return {
    database: o.database,
    lookup: o.lookup,
    heloName: o.delivery.heloName,
    bounceDomain: o.delivery.bounceDomain,
    trackingTarget: new URL(o.publicUrl).hostname,
    dkimPreviousDays: o.delivery.dkimOldSelectorDays ?? DEFAULT_DKIM_PREVIOUS_DAYS,
  };
}

/** A sender domain with what to publish and its last checks. */
export interface DomainView {
  row: SenderDomainRow;
  records: DnsRecord[];
  checks: HealthCheck[];
}

const viewOf = (deps: DomainDeps, row: SenderDomainRow): DomainView => ({
  row,
  records: dnsRecordsFor(row, { bounceDomain: deps.bounceDomain, heloName: deps.heloName, trackingTarget: deps.trackingTarget }),
  checks: row.healthChecks ?? [],
});

export async function addDomain(deps: DomainDeps, accountId: string, name: string): Promise<DomainView> {
  return viewOf(deps, await addSenderDomain(deps.database, accountId, name));
}

export async function listDomains(deps: DomainDeps, accountId: string): Promise<DomainView[]> {
  return (await listSenderDomains(deps.database, accountId)).map((row) => viewOf(deps, row));
}

export async function getDomain(deps: DomainDeps, accountId: string, name: string): Promise<DomainView | undefined> {
  const row = await findSenderDomain(deps.database, accountId, name);
  return row && viewOf(deps, row);
}

export async function deleteDomain(deps: DomainDeps, accountId: string, name: string): Promise<boolean> {
  return deleteSenderDomain(deps.database, accountId, name);
}

/**
 * Runs the health checks now and acts on them: the verification TXT found
 * verifies a pending domain (a verified domain stays verified: a DNS outage
 * must not stop its mail), a rotation's new key that verifies starts signing
 * (the old one stays published for dkimPreviousDays), a tracking CNAME that
 * reaches the instance turns the tracking domain on.
 */
export async function checkDomainRow(deps: DomainDeps, row: SenderDomainRow, now = new Date()): Promise<SenderDomainRow> {
  const view = viewOf(deps, row);
  const run = await runHealthChecks(row, view.records, returnPathDomainOf(row.name, deps.bounceDomain), { heloName: deps.heloName }, deps.lookup);
  const rotate = run.nextDkimVerified && row.dkimNextSelector && row.dkimNextPrivateKey && row.dkimNextPublicKey;
  const updated = await updateSenderDomainRow(deps.database, row.id, {
    healthChecks: run.checks,
    checkedAt: now,
    ...(run.verified && row.status !== "verified" && { status: "verified", verifiedAt: now }),
    ...(rotate && {
      dkimPreviousSelector: row.dkimSelector,
      dkimPreviousPublicKey: row.dkimPublicKey,
      dkimPreviousUntil: new Date(now.getTime() + deps.dkimPreviousDays * 86_400_000),
      dkimSelector: row.dkimNextSelector!,
      dkimPrivateKey: row.dkimNextPrivateKey!,
      dkimPublicKey: row.dkimNextPublicKey!,
      dkimNextSelector: null,
      dkimNextPrivateKey: null,
      dkimNextPublicKey: null,
    }),
    // A failed lookup keeps the tracking domain as it was: links must not move for a DNS hiccup.
    ...(run.tracking === "pass" && { trackingVerifiedAt: row.trackingVerifiedAt ?? now }),
    ...(run.tracking === "fail" && { trackingVerifiedAt: null }),
  });
  return updated ?? row;
}

export async function checkDomain(deps: DomainDeps, accountId: string, name: string): Promise<DomainView | undefined> {
  const row = await findSenderDomain(deps.database, accountId, name);
  return row && viewOf(deps, await checkDomainRow(deps, row));
}

/** A new selector (`mailroom-<yyyymmdd>-<hex>`) and key beside the one signing; it signs once a check finds its record. */
export async function rotateDkim(deps: DomainDeps, accountId: string, name: string, now = new Date()): Promise<DomainView | undefined> {
  const row = await findSenderDomain(deps.database, accountId, name);
  if (!row) return undefined;
  const { privateKey, publicKey } = await generateDkimKeyPair();
  const selector = `mailroom-${now.toISOString().slice(0, 10).replaceAll("-", "")}-${randomBytes(2).toString("hex")}`;
  const updated = await updateSenderDomainRow(deps.database, row.id, { dkimNextSelector: selector, dkimNextPrivateKey: privateKey, dkimNextPublicKey: publicKey });
  return updated && viewOf(deps, updated);
}

/** A tracking host under the domain, or null to remove it; it serves links once its CNAME checks out. */
export async function setTrackingDomain(deps: DomainDeps, accountId: string, name: string, host: string | null): Promise<DomainView | undefined> {
  const row = await findSenderDomain(deps.database, accountId, name);
  if (!row) return undefined;
  const tracking = host === null ? null : normalizeDomainName(host);
  if (tracking !== null) {
    if (!tracking.endsWith(`.${row.name}`)) throw new DomainError(`The tracking domain must be a host name under ${row.name}, e.g. track.${row.name}`);
    if (await trackingHostTaken(deps.database, tracking, row.id)) throw new DomainError(`${tracking} is the tracking domain of another sender domain`);
  }
  const same = tracking === row.trackingDomain;
  const updated = await updateSenderDomainRow(deps.database, row.id, { trackingDomain: tracking, ...(!same && { trackingVerifiedAt: null }) });
  return updated && viewOf(deps, updated);
}

const DAILY_CHECKS_AT_ONCE = 4;

/** The daily run (lib/maintenance/domain-health.ts): every domain's checks, and rotated-out selectors past their time dropped. */
export async function checkAllDomains(deps: DomainDeps, now = new Date()): Promise<{ checked: number; selectorsDropped: number }> {
  let checked = 0;
  let selectorsDropped = 0;
  let after: string | null = null;
  for (;;) {
    const page = await selectSenderDomainPage(deps.database, after, 50);
    if (page.length === 0) break;
    // A few domains at once: each waits mostly on DNS (a dead server costs seconds a lookup), not on CPU.
    for (let i = 0; i < page.length; i += DAILY_CHECKS_AT_ONCE) {
      await Promise.all(
        page.slice(i, i + DAILY_CHECKS_AT_ONCE).map(async (row) => {
          let current = row;
          if (row.dkimPreviousUntil && row.dkimPreviousUntil <= now) {
            current = (await updateSenderDomainRow(deps.database, row.id, { dkimPreviousSelector: null, dkimPreviousPublicKey: null, dkimPreviousUntil: null })) ?? row;
            selectorsDropped++;
          }
          await checkDomainRow(deps, current, now);
          checked++;
        }),
      );
    }
    after = page[page.length - 1]!.id;
  }
  return { checked, selectorsDropped };
}
