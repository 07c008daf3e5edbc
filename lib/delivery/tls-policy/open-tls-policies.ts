import { readFileSync } from "node:fs";
import tls from "node:tls";
import type { Logger } from "../../logger";
import { dnsResolver } from "../../net/dns-resolver";
import { tlsaLookupOn } from "../../net/tlsa-lookup";
import { fetchStsPolicy } from "./mta-sts-fetch";
import { createStsPolicies } from "./mta-sts-policies";
import { createTlsPolicies, type TlsPolicies } from "./tls-policies";
import type { TlsSessionSink } from "./tls-result";
import type { Queryable } from "../../storage/database";
import { selectStsPolicy, upsertStsPolicy } from "../../storage/mta-sts-policy-rows";

export interface TlsPolicySettings {
  mtaSts: boolean;
  dane: boolean;
  extraCaFile?: string;
  mtaStsPort: number;
}

/**
 * The TLS policies of a worker process's direct-MX delivery, from its
 * settings (lib/config.ts delivery.tls): undefined when both are off. The
 * extra CA file is read once here; a file that cannot be read stops the
 * start (a policy check that silently trusts less would defer real mail).
 */
export function openTlsPolicies(
  settings: TlsPolicySettings,
  options: { dnsServers?: string[]; allowPrivate: boolean; log: Logger; sessions?: TlsSessionSink; database?: Queryable },
): { policies?: TlsPolicies; ca?: string[] } {
  const ca = settings.extraCaFile ? [...tls.rootCertificates, readFileSync(settings.extraCaFile, "utf8")] : undefined;
  if (!settings.mtaSts && !settings.dane) return { ca };
  const resolver = dnsResolver({ servers: options.dnsServers });
  const sts = settings.mtaSts
    ? createStsPolicies({
        resolveTxt: (name) => resolver.resolveTxt(name),
        fetchPolicy: (domain) => fetchStsPolicy(domain, { resolve4: (h) => resolver.resolve4(h), port: settings.mtaStsPort, timeoutMs: 10_000, ca, allowPrivate: options.allowPrivate }),
        store: options.database ? stsPolicyStore(options.database, options.log) : undefined,
        onFailure: (domain, failure) => {
          options.log.warn({ domain, resultType: failure.resultType, reason: failure.reason }, "MTA-STS policy not refreshed");
          options.sessions?.add({ policyDomain: domain, policyType: "sts", policyString: [], mxHost: "", failure: { resultType: failure.resultType, additionalInformation: failure.reason }, at: Date.now() });
        },
      })
    : undefined;
  const policies = createTlsPolicies({
    sts,
    tlsa: settings.dane ? tlsaLookupOn(options.dnsServers) : undefined,
    sessions: options.sessions,
    onTlsaError: (host, err) => options.log.warn({ host, err }, "TLSA lookup failed: delivered without DANE"),
  });
  return { policies, ca };
}

/** Fetched policies in mta_sts_policies, so a restarted worker keeps enforcing them (RFC 8461 §5.1). */
function stsPolicyStore(db: Queryable, log: Logger) {
  return {
    load: async (domain: string) => {
      const row = await selectStsPolicy(db, domain);
      return row && { id: row.recordId, text: row.policy, expiresAt: row.expiresAt.getTime() };
    },
    save: (domain: string, p: { id: string; text: string; expiresAt: number }) =>
      upsertStsPolicy(db, domain, { recordId: p.id, policy: p.text, expiresAt: new Date(p.expiresAt) }).catch((err: unknown) => {
        log.warn({ domain, err }, "MTA-STS policy not stored: a restarted worker fetches it again");
      }),
  };
}
