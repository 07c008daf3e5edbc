import type { TlsaAnswer, TlsaLookup } from "../../net/tlsa-lookup";
import { planHops, type HopPlan } from "./hop-tls";
import type { StsLookup, StsPolicies } from "./mta-sts-policies";
import type { OpenOptions } from "../smtp-connection";
import type { TlsSessionSink } from "./tls-result";

/**
 * Direct-MX delivery's TLS policies for one domain's hops: its MTA-STS
 * policy (cached, mta-sts-policies.ts) and, with DANE on, each MX host's
 * TLSA records (cached for their TTL, 30 s to an hour; a failed lookup a
 * minute, as no DANE). On the hot path both are Map lookups.
 */

export interface TlsPolicies {
  plan(domain: string, hops: readonly { host: string; address: string }[]): Promise<HopPlan>;
  /** Where sessions under a policy, and policy failures, are counted (TLS-RPT). */
  sessions?: TlsSessionSink;
}

interface TlsaEntry {
  answer?: TlsaAnswer;
  until: number;
  pending?: Promise<TlsaAnswer | undefined>;
}

const MAX_HOSTS = 50_000;

export function createTlsPolicies(deps: { sts?: StsPolicies; tlsa?: TlsaLookup; sessions?: TlsSessionSink; now?: () => number; onTlsaError?(host: string, err: unknown): void }): TlsPolicies {
  const now = deps.now ?? Date.now;
  const tlsaEntries = new Map<string, TlsaEntry>();

  function tlsaOf(host: string): Promise<TlsaAnswer | undefined> | TlsaAnswer | undefined {
    const key = host.toLowerCase();
    const e = tlsaEntries.get(key);
    const t = now();
    if (e && t < e.until) return e.pending ?? e.answer;
    const entry: TlsaEntry = { until: Number.POSITIVE_INFINITY };
    entry.pending = deps.tlsa!(key).then(
      (answer) => {
        Object.assign(entry, { answer, pending: undefined, until: now() + Math.min(3600, Math.max(30, answer.ttl)) * 1000 });
        return answer;
      },
      (err: unknown) => {
        deps.onTlsaError?.(key, err);
        Object.assign(entry, { answer: undefined, pending: undefined, until: now() + 60_000 });
        return undefined;
      },
    );
    tlsaEntries.delete(key);
    tlsaEntries.set(key, entry);
    if (tlsaEntries.size > MAX_HOSTS) tlsaEntries.delete(tlsaEntries.keys().next().value!);
    return entry.pending;
  }

  return {
    sessions: deps.sessions,
    async plan(domain, hops) {
      const [sts, tlsa] = await Promise.all([
        deps.sts ? deps.sts.lookup(domain) : ({} as StsLookup),
        deps.tlsa ? Promise.all([...new Set(hops.map((h) => h.host))].map(async (h) => [h, await tlsaOf(h)] as const)) : [],
      ]);
      // A discovery failure (sts.failure) was told to the STS cache's onFailure, which counts it.
      const byHost = new Map(tlsa);
      return planHops(domain, hops, sts, (h) => byHost.get(h));
    },
  };
}

/** Each session under a policy as TLS-RPT counts it (smtp-connection.ts calls it once the session's TLS is judged). */
export function sessionReporter(sink: TlsSessionSink): NonNullable<OpenOptions["onTlsSession"]> {
  return (target, judged, address) => {
    const t = target.tls;
    if (!t) return;
    sink.add({
      policyDomain: t.policyDomain,
      policyType: t.policyType,
      policyString: t.policyString,
      mxHost: t.mxHost,
      receivingIp: address.remote,
      sendingIp: address.local,
      ...(judged.failure && { failure: judged.failure }),
      at: Date.now(),
    });
  };
}
