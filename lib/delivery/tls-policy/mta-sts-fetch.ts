import https from "node:https";
import type { LookupFunction } from "node:net";
import { refusedRangeOf } from "../../net/address-ranges";

/**
 * Fetches a domain's MTA-STS policy (RFC 8461 §3.3): GET
 * https://mta-sts.<domain>/.well-known/mta-sts.txt, the certificate checked
 * against the WebPKI (the system's roots, plus MAILROOM_TLS_EXTRA_CA_FILE's)
 * for that name; no redirect followed; 200 and text/plain only; at most
 * MAX_POLICY_BYTES read and the whole fetch within `timeoutMs`. The host is
 * resolved through delivery's DNS, and an address the SSRF guard refuses is
 * not connected to (lib/net/address-ranges.ts) unless `allowPrivate`.
 */

export const MAX_POLICY_BYTES = 64 * 1024;

export interface PolicyFetchOptions {
  resolve4(host: string): Promise<string[]>;
  /** 443; another only in test rigs. */
  port: number;
  timeoutMs: number;
  /** The trusted roots when they are not the system's alone (undefined: Node's defaults). */
  ca?: string[];
  allowPrivate: boolean;
}

export type PolicyFetch = { ok: true; text: string } | { ok: false; webpki: boolean; reason: string };

const WEBPKI_CODES = ["CERT_", "ERR_TLS_CERT", "DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_", "ERR_SSL_"];

const isWebPkiError = (err: { code?: string }) => WEBPKI_CODES.some((p) => (err.code ?? "").startsWith(p));

/** A lookup through delivery's resolver that refuses what the SSRF guard refuses. */
function guardedLookup(options: PolicyFetchOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    options.resolve4(hostname).then(
      (addresses) => {
        const allowed = addresses.filter((a) => options.allowPrivate || refusedRangeOf(a) === undefined);
        if (allowed.length === 0) {
          const why = addresses.length === 0 ? "has no address" : `resolves only to refused addresses (${addresses.slice(0, 3).join(", ")})`;
          return callback(Object.assign(new Error(`${hostname} ${why}`), { code: "ENOTFOUND" }), "", 4);
        }
        if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, allowed.map((address) => ({ address, family: 4 })));
        callback(null, allowed[0]!, 4);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, "", 4),
    );
  };
}

export function fetchStsPolicy(domain: string, options: PolicyFetchOptions): Promise<PolicyFetch> {
  const host = `mta-sts.${domain}`;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PolicyFetch) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = https.request(
      {
        host,
        servername: host,
        port: options.port,
        path: "/.well-known/mta-sts.txt",
        method: "GET",
        headers: { accept: "text/plain" },
        lookup: guardedLookup(options),
        ca: options.ca,
        rejectUnauthorized: true,
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) return finish({ ok: false, webpki: false, reason: `${host} answered HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed, RFC 8461 §3.3)" : ""}` });
        const type = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
        if (type !== "text/plain") return finish({ ok: false, webpki: false, reason: `${host} served the policy as "${type.slice(0, 40)}", not text/plain` });
        const declared = Number(response.headers["content-length"] ?? 0);
        if (declared > MAX_POLICY_BYTES) return finish({ ok: false, webpki: false, reason: `${host}'s policy is ${declared} bytes, over ${MAX_POLICY_BYTES}` });
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_POLICY_BYTES) return finish({ ok: false, webpki: false, reason: `${host}'s policy is over ${MAX_POLICY_BYTES} bytes` });
          chunks.push(chunk);
        });
        response.on("end", () => finish({ ok: true, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", (err) => finish({ ok: false, webpki: false, reason: `${host}: ${err.message}` }));
      },
    );
    const timer = setTimeout(() => finish({ ok: false, webpki: false, reason: `${host} did not serve its policy within ${options.timeoutMs} ms` }), options.timeoutMs);
    request.on("error", (err: Error & { code?: string }) =>
      finish({ ok: false, webpki: isWebPkiError(err), reason: `${host}: ${isWebPkiError(err) ? `certificate not valid (${err.code})` : err.message}` }),
    );
    request.end();
  });
}
