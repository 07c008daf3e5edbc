import { parseStsPolicy, type StsPolicy } from "./mta-sts-policy-text";
import type { PolicyFetch } from "./mta-sts-fetch";
import { stsRecordOf } from "./mta-sts-record";
import type { TlsRptResultType } from "./tls-result";

/**
 * Each recipient domain's MTA-STS policy, kept for its max_age (RFC 8461
 * §5.1). The hot path is one Map lookup: only a domain's first lookup waits
 * for DNS (and the HTTPS fetch); after `recheckMs` the TXT record is asked
 * again in the background while the known answer keeps serving, and the
 * policy is fetched again when the record's id changes or when it nears its
 * expiry (`refreshAheadMs`), so it never lapses for a domain that keeps
 * publishing it. A failed refresh keeps a policy that has not expired (an
 * attacker who strips the TXT record or blocks the fetch gains nothing);
 * failures are told to `onFailure` (TLS-RPT counts them).
 */

export interface StsLookup {
  /** The policy in force (enforce or testing); undefined: none, or `mode: none`. */
  policy?: StsPolicy;
  /** A discovery failure met by this lookup itself (the first one of a domain). */
  failure?: StsFailure;
}

export interface StsFailure {
  resultType: Extract<TlsRptResultType, "sts-policy-fetch-error" | "sts-policy-invalid" | "sts-webpki-invalid">;
  reason: string;
}

export interface StsPolicyDeps {
  resolveTxt(name: string): Promise<string[][]>;
  fetchPolicy(domain: string): Promise<PolicyFetch>;
  now?: () => number;
  /** How long an answer serves before its TXT record is asked again (default 5 min). */
  recheckMs?: number;
  /** A policy is fetched again this long before it expires (default a day, at most a quarter of its max_age). */
  refreshAheadMs?: number;
  /** Domains kept (default 50,000; the oldest goes first). */
  maxDomains?: number;
  onFailure?(domain: string, failure: StsFailure): void;
  /**
   * Where fetched policies outlive the process (mta_sts_policies): read on a
   * domain's first lookup, written after each fetch. Its failures only lose
   * that: the policy in memory still serves.
   */
  store?: StsPolicyStore;
}

export interface StsPolicyStore {
  load(domain: string): Promise<{ id: string; text: string; expiresAt: number } | undefined>;
  save(domain: string, policy: { id: string; text: string; expiresAt: number }): Promise<void>;
}

interface Entry {
  policy?: StsPolicy;
  id?: string;
  expiresAt: number;
  checkAfter: number;
  refreshing?: Promise<StsLookup>;
  /** The domain's first lookup, still running: others wait for it. */
  first?: boolean;
}

const DNS_MISSING = new Set(["ENODATA", "ENOTFOUND", "ENODOMAIN"]);

export interface StsPolicies {
  lookup(domain: string): Promise<StsLookup>;
  /** Domains known (for the metrics and tests). */
  size(): number;
}

export function createStsPolicies(deps: StsPolicyDeps): StsPolicies {
  const now = deps.now ?? Date.now;
  const recheckMs = deps.recheckMs ?? 5 * 60_000;
  const maxDomains = deps.maxDomains ?? 50_000;
  const entries = new Map<string, Entry>();

  const inForce = (e: Entry | undefined, t: number): StsPolicy | undefined => (e?.policy && t < e.expiresAt && e.policy.mode !== "none" ? e.policy : undefined);

  function remember(domain: string, entry: Entry): void {
    entries.delete(domain);
    entries.set(domain, entry);
    if (entries.size > maxDomains) entries.delete(entries.keys().next().value!);
  }

  /** A policy an earlier process fetched (and that has not expired), as if this one had. */
  async function stored(domain: string): Promise<Entry | undefined> {
    const row = await deps.store?.load(domain).catch(() => undefined);
    if (!row) return undefined;
    const parsed = parseStsPolicy(row.text);
    return parsed.ok && row.expiresAt > now() ? { policy: parsed.policy, id: row.id, expiresAt: row.expiresAt, checkAfter: 0 } : undefined;
  }

  async function refresh(domain: string, known: Entry | undefined): Promise<StsLookup> {
    known ??= await stored(domain);
    const t = now();
    const keep = (failure?: StsFailure, retryMs = recheckMs): StsLookup => {
      remember(domain, { ...(known ?? { expiresAt: 0 }), refreshing: undefined, checkAfter: t + retryMs });
      if (failure) deps.onFailure?.(domain, failure);
      return { policy: inForce(known, t), failure };
    };
    let txt: string[][];
    try {
      txt = await deps.resolveTxt(`_mta-sts.${domain}`);
    } catch (err) {
      // No record: the domain has no policy (a cached one still holds until it expires). A failed lookup: asked again soon.
      return DNS_MISSING.has((err as { code?: string }).code ?? "") ? keep() : keep(undefined, 60_000);
    }
    const record = stsRecordOf(txt);
    if (!record) return keep();
    const refreshAheadMs = Math.min(deps.refreshAheadMs ?? 86_400_000, ((known?.policy?.maxAgeSeconds ?? 0) * 1000) / 4);
    if (known?.id === record.id && inForce(known, t + refreshAheadMs) !== undefined) return keep();
    if (known?.id === record.id && known.policy?.mode === "none" && t < known.expiresAt) return keep();
    const fetched = await deps.fetchPolicy(domain);
    if (!fetched.ok) return keep({ resultType: fetched.webpki ? "sts-webpki-invalid" : "sts-policy-fetch-error", reason: fetched.reason }, 5 * 60_000);
    const parsed = parseStsPolicy(fetched.text);
    if (!parsed.ok) return keep({ resultType: "sts-policy-invalid", reason: `mta-sts.${domain}'s policy: ${parsed.reason}` }, 5 * 60_000);
    const entry: Entry = { policy: parsed.policy, id: record.id, expiresAt: t + parsed.policy.maxAgeSeconds * 1000, checkAfter: t + recheckMs };
    remember(domain, entry);
    deps.store?.save(domain, { id: record.id, text: fetched.text, expiresAt: entry.expiresAt }).catch(() => {});
    return { policy: inForce(entry, t) };
  }

  return {
    async lookup(domain) {
      const key = domain.toLowerCase();
      const entry = entries.get(key);
      const t = now();
      if (entry?.first) return entry.refreshing!;
      if (entry && t < entry.checkAfter) return { policy: inForce(entry, t) };
      if (entry) {
        // Known: served as it is while the record is asked again.
        entry.refreshing ??= refresh(key, entry).catch(() => {
          entry.refreshing = undefined;
          return {};
        });
        return { policy: inForce(entry, t) };
      }
      const refreshing = refresh(key, undefined).catch(() => {
        remember(key, { expiresAt: 0, checkAfter: now() + 60_000 });
        return {};
      });
      entries.set(key, { expiresAt: 0, checkAfter: Number.POSITIVE_INFINITY, refreshing, first: true });
      return refreshing;
    },
    size: () => entries.size,
  };
}
