import dns from "node:dns/promises";
import { cachedResolver } from "./dns-answer-cache";

/**
 * The DNS of delivery and of the sender-domain checks. Without servers, the
 * system's resolver; with them (MAILROOM_DNS_SERVERS, a test rig's fake
 * internet on loopback), a node:dns Resolver that asks only those. Answers
 * are cached a minute, single-flight (docs/adr/0806).
 */

export interface DnsResolver {
  resolveMx(domain: string): Promise<{ exchange: string; priority: number }[]>;
  resolve4(host: string): Promise<string[]>;
  resolve6(host: string): Promise<string[]>;
  /** Each record is a list of character strings (node:dns's resolveTxt). */
  resolveTxt(name: string): Promise<string[][]>;
}

export interface DnsResolverOptions {
  /** Resolver addresses (`127.0.0.1:5353`, `[::1]:53`); undefined or empty: the system's. */
  servers?: string[];
  /** How long answers are kept (default 60 s; 0: not cached). */
  ttlMs?: number;
  /** Per-query timeout of a Resolver of given servers (ms). */
  timeoutMs?: number;
}

type Lookup = (name: string, rrtype: string) => Promise<unknown>;

/** A plain lookup on the given servers, or on the system's resolver. */
export function lookupOn(servers: string[] | undefined, timeoutMs = 3000): Lookup {
  if (!servers || servers.length === 0) return (name, rrtype) => dns.resolve(name, rrtype);
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers(servers);
  return (name, rrtype) => resolver.resolve(name, rrtype);
}

export function dnsResolver(options: DnsResolverOptions = {}): DnsResolver {
  const lookup = lookupOn(options.servers, options.timeoutMs);
  const ask = options.ttlMs === 0 ? lookup : cachedResolver<unknown>(lookup, { ttlMs: options.ttlMs ?? 60_000 });
  return {
    resolveMx: (d) => ask(d, "MX") as Promise<{ exchange: string; priority: number }[]>,
    resolve4: (h) => ask(h, "A") as Promise<string[]>,
    resolve6: (h) => ask(h, "AAAA") as Promise<string[]>,
    resolveTxt: (n) => ask(n, "TXT") as Promise<string[][]>,
  };
}
