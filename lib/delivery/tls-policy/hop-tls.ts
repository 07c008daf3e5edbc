import { checkDane, tlsaText, type TlsaRecord } from "./dane-match";
import { mxMatchesPolicy } from "./mta-sts-policy-text";
import type { StsLookup } from "./mta-sts-policies";
import type { TlsaAnswer } from "../../net/tlsa-lookup";
import type { TlsPolicyName, TlsRptPolicyType, TlsRptResultType, TlsVerdict } from "./tls-result";

/**
 * Which TLS policy applies to each MX host of a domain, and what a session
 * made of it (docs/adr/0326). DANE, where the host's TLSA records are
 * DNSSEC-validated, takes precedence over MTA-STS (RFC 8461 §2); an enforced
 * MTA-STS policy leaves out the MX hosts it does not list (RFC 8461 §4.1);
 * other hosts get opportunistic STARTTLS. Pure: the lookups are done before.
 */

export interface HopTls {
  policy: Exclude<TlsPolicyName, "none">;
  /** TLS is required and its check must pass, else nothing is sent (MTA-STS enforce, DANE). */
  enforce: boolean;
  mode?: "enforce" | "testing";
  /** The name the certificate is checked against. */
  mxHost: string;
  tlsa?: TlsaRecord[];
  /** MTA-STS: the host is one the policy lists (a testing policy still delivers to one it does not). */
  listed?: boolean;
  policyDomain: string;
  policyType: TlsRptPolicyType;
  policyString: string[];
}

export interface PlannedHop {
  host: string;
  address: string;
  tls: HopTls;
}

export type HopPlan = { ok: true; hops: PlannedHop[] } | { ok: false; reason: string; tls: HopTls };

/**
 * Pooled connections are shared only under the same policy and MX name: the
 * check is of the name (and its TLSA records), and two MX names may share an
 * address, so a session proven for one is no proof for the other.
 */
export const hopTlsKey = (tls: HopTls | undefined): string => (tls && tls.policy !== "opportunistic" ? `:${tls.policy}:${tls.mode ?? ""}:${tls.mxHost.toLowerCase()}` : "");

export function planHops(domain: string, hops: readonly { host: string; address: string }[], sts: StsLookup, tlsaOf: (host: string) => TlsaAnswer | undefined): HopPlan {
  const policy = sts.policy;
  const planned: PlannedHop[] = [];
  for (const hop of hops) {
    const tlsa = tlsaOf(hop.host);
    if (tlsa?.secure && tlsa.records.length > 0) {
      planned.push({ ...hop, tls: { policy: "dane", enforce: true, mxHost: hop.host, tlsa: tlsa.records, policyDomain: domain, policyType: "tlsa", policyString: tlsa.records.map(tlsaText) } });
      continue;
    }
    if (policy && (policy.mode === "enforce" || policy.mode === "testing")) {
      const listed = mxMatchesPolicy(hop.host, policy);
      if (policy.mode === "enforce" && !listed) continue;
      planned.push({ ...hop, tls: { policy: "mta-sts", enforce: policy.mode === "enforce", mode: policy.mode, mxHost: hop.host, listed, policyDomain: domain, policyType: "sts", policyString: policy.lines } });
      continue;
    }
    planned.push({ ...hop, tls: { policy: "opportunistic", enforce: false, mxHost: hop.host, policyDomain: domain, policyType: "no-policy-found", policyString: [] } });
  }
  if (planned.length > 0 || !policy) return { ok: true, hops: planned };
  const hosts = [...new Set(hops.map((h) => h.host))].slice(0, 4).join(", ");
  return {
    ok: false,
    reason: `No MX host of ${domain} (${hosts}) is listed by its MTA-STS policy (mx: ${policy.mx.slice(0, 4).join(", ")}), so nothing was sent (RFC 8461 enforce)`,
    tls: { policy: "mta-sts", enforce: true, mode: "enforce", mxHost: hops[0]?.host ?? domain, listed: false, policyDomain: domain, policyType: "sts", policyString: policy.lines },
  };
}

/** What the TLS layer of a session showed (smtp-connection.ts reads it off the socket). */
export interface TlsFacts {
  secure: boolean;
  protocol?: string;
  cipher?: string;
  /** The chain verified against the trusted roots (Node's `authorized`, before any name check). */
  chainTrusted: boolean;
  /** Node's reason when it is not. */
  chainError?: string;
  /** The leaf names `mxHost`. */
  nameMatches: boolean;
  /** The presented chain, leaf first, DER. */
  chain: Buffer[];
}

export interface SessionVerdict {
  verdict: TlsVerdict;
  /** For TLS-RPT: absent when the session met its policy. */
  failure?: { resultType: TlsRptResultType; additionalInformation: string };
  /** The policy is enforced and failed: nothing may be sent on this session. */
  refuse: boolean;
}

function webPkiFailure(facts: TlsFacts, mxHost: string): { resultType: TlsRptResultType; additionalInformation: string } | undefined {
  if (facts.chainError === "CERT_HAS_EXPIRED") return { resultType: "certificate-expired", additionalInformation: `the certificate of ${mxHost} has expired` };
  if (!facts.chainTrusted) return { resultType: "certificate-not-trusted", additionalInformation: `the certificate of ${mxHost} is not trusted (${facts.chainError ?? "unknown issuer"})` };
  if (!facts.nameMatches) return { resultType: "certificate-host-mismatch", additionalInformation: `the certificate does not name ${mxHost}` };
  return undefined;
}

export function judgeSession(tls: HopTls | undefined, facts: TlsFacts): SessionVerdict {
  const negotiated = facts.secure ? { version: facts.protocol, cipher: facts.cipher } : {};
  if (!tls || tls.policy === "opportunistic") {
    return { verdict: { policy: facts.secure ? "opportunistic" : "none", ...negotiated, verified: facts.secure && facts.chainTrusted && facts.nameMatches }, refuse: false };
  }
  const base = { policy: tls.policy, ...(tls.mode && { mode: tls.mode }), ...negotiated };
  let failure: SessionVerdict["failure"];
  let verified = true;
  if (!facts.secure) failure = { resultType: "starttls-not-supported", additionalInformation: `${tls.mxHost} offered no STARTTLS` };
  else if (tls.policy === "dane") {
    const check = checkDane(tls.tlsa ?? [], facts.chain, tls.mxHost);
    if (!check.ok) failure = { resultType: "tlsa-invalid", additionalInformation: check.reason };
    // Only unusable records (PKIX usages): TLS was mandatory, but nothing authenticates the peer (RFC 7672 §2.2).
    else verified = check.matched !== undefined;
  } else {
    failure = webPkiFailure(facts, tls.mxHost);
    if (!failure && tls.listed === false) failure = { resultType: "validation-failure", additionalInformation: `${tls.mxHost} is not an MX host the MTA-STS policy lists` };
  }
  if (!failure) return { verdict: { ...base, verified }, refuse: false };
  return { verdict: { ...base, verified: false, failure: failure.additionalInformation }, failure, refuse: tls.enforce };
}
