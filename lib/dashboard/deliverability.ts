import "server-only";
import type { DmarcResponse } from "../contract/dmarc";
import type { DomainJson } from "../contract/domains";
import type { ReputationResponse } from "../contract/reputation";
import type { StatsResponse } from "../contract/stats";
import { describeApiError } from "../api-client/describe-error";
import { fetchStats, mapLimit, type StatsSource } from "../api-client/stats";
import { getServerContext } from "../runtime";
import { apiFor } from "./api-for";
import type { AccountAccess } from "./decide";

/**
 * The Deliverability page's data (docs/adr/0519), read through the public API
 * as the account of the URL: 30 days of daily counts (GET /stats), the
 * reputation guardrails (GET /reputation), the sender domains with their
 * health checks (GET /domains) and each domain's DMARC sources (GET
 * /domains/{domain}/dmarc). An older server without the reputation or DMARC
 * endpoint answers 404: that part is null and the page says so. Each part
 * fails on its own, so one refusal does not blank the page. What the API
 * cannot say, how this instance sends (MAILROOM_DELIVERY, MAILROOM_PUBLIC_URL),
 * comes from the process's configuration.
 */

export const DELIVERABILITY_DAYS = 30;
/** DMARC sources are read for at most this many domains, a few at a time. */
const MAX_DMARC_DOMAINS = 20;

export type Part<T> = { ok: true; value: T } | { ok: false; error: string };

export interface DeliverabilityData {
  range: { start: number; end: number };
  stats: Part<{ stats: StatsResponse; source: StatsSource }>;
  /** null: the server has no reputation endpoint. */
  reputation: Part<ReputationResponse | null>;
  domains: Part<DomainJson[]>;
  /** null: no DMARC endpoint, or no reports for that domain. */
  dmarc: { domain: string; result: Part<DmarcResponse | null> }[];
  instance: { mode: "sandbox" | "relay" | "mx"; relayScheme?: string; publicUrl: string };
}

async function part<T>(work: () => Promise<T>): Promise<Part<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    return { ok: false, error: describeApiError(err) };
  }
}

export async function loadDeliverability(access: AccountAccess, nowSeconds = Math.floor(Date.now() / 1000)): Promise<DeliverabilityData> {
  const api = await apiFor(access, "deliverability");
  const dayStart = Math.floor(nowSeconds / 86_400) * 86_400;
  const range = { start: dayStart - (DELIVERABILITY_DAYS - 1) * 86_400, end: nowSeconds };
  const [stats, reputation, domains] = await Promise.all([
    part(() => fetchStats(api, { StartDate: range.start, EndDate: range.end, Interval: "day" })),
    part(async () => (await api.getReputation()) ?? null),
    part(async () => (await api.listDomains()).Domains),
  ]);
  const names = domains.ok ? domains.value.slice(0, MAX_DMARC_DOMAINS).map((d) => d.Domain) : [];
  const dmarc = await mapLimit(names, 4, async (domain) => ({ domain, result: await part(async () => (await api.getDmarcSources(domain, DELIVERABILITY_DAYS)) ?? null) }));
  const { config, publicUrl } = getServerContext();
  const relayScheme = config.delivery.relayUrl ? new URL(config.delivery.relayUrl).protocol : undefined;
  return { range, stats, reputation, domains, dmarc, instance: { mode: config.delivery.mode, relayScheme, publicUrl } };
}
