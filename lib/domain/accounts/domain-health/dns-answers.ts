/**
 * The DNS of the health checks: one lookup function in node:dns's
 * `resolve(name, rrtype)` shape (what mailauth takes too), injected by the
 * caller (lib/net/dns-resolver.ts's `lookupOn`, through MAILROOM_DNS_SERVERS
 * in tests), and the answers it gathers as plain data for the pure checks.
 */
export type DnsLookup = (name: string, rrtype: string) => Promise<unknown>;

/** An answer: the records, none (NXDOMAIN, no data), or a lookup that failed. */
export type Answer<T> = { ok: true; values: T[] } | { ok: false; error: string };

const NOT_FOUND_CODES = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "ENONAME"]);

/** Asks once; "no such record" is an empty answer, anything else an error that the check reports as such. */
export async function ask<T>(lookup: DnsLookup, name: string, rrtype: string): Promise<Answer<T>> {
  try {
    const values = await lookup(name, rrtype);
    return { ok: true, values: Array.isArray(values) ? (values as T[]) : [] };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (NOT_FOUND_CODES.has(code)) return { ok: true, values: [] };
    return { ok: false, error: `DNS lookup of ${rrtype} ${name} failed (${code || (err as Error).message})` };
  }
}

/** A TXT answer's records, each one string (its character strings joined, RFC 7208 §3.3). */
export function txtStrings(answer: Answer<string[] | string>): Answer<string> {
  if (!answer.ok) return answer;
  return { ok: true, values: answer.values.map((chunks) => (Array.isArray(chunks) ? chunks.join("") : String(chunks))) };
}

/** A host name as compared: lowercase, without the root's dot. */
export const hostKey = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");
