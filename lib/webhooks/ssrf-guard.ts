import dns from "node:dns";
import ipaddr from "ipaddr.js";
import { isPublicAddress, refusedRangeOf } from "../net/address-ranges";

/**
 * SSRF guard for webhook destinations (docs/contract.md §9.1). A webhook
 * may only reach a public unicast address, unless the operator allows
 * private destinations (MAILROOM_ALLOW_PRIVATE_WEBHOOKS=true). The guard
 * runs at registration and again before every attempt, and the attempt
 * connects to the address that was checked (no second lookup that could
 * rebind to an internal address).
 */

export class SsrfRefusedError extends Error {
  constructor(
    message: string,
    readonly hostname: string,
    /** `internal`: the address is not public; `unresolvable`: the name has no address (now). */
    readonly kind: "internal" | "unresolvable" = "internal",
  ) {
    super(message);
    this.name = "SsrfRefusedError";
  }
}

// The range policy is shared with direct-MX delivery: one list, in lib/net.
export { isPublicAddress, refusedRangeOf };

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to all its addresses (the system resolver, like any HTTP client). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const all = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The host of a URL as a bare name or address (IPv6 without brackets). */
export function hostOf(url: URL): string {
  const h = url.hostname;
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

/**
 * The addresses to connect to for `url`, all checked. An IP literal is
 * checked as it is; a name is resolved once and refused if ANY of its
 * addresses is not public (so round-robin records cannot smuggle an internal
 * address in). With `allowPrivate` every address is accepted, but the name
 * is still resolved once and pinned.
 */
export async function resolveDestinationAddresses(
  url: URL,
  options: { allowPrivate: boolean; resolver?: Resolver },
): Promise<ResolvedAddress[]> {
  const host = hostOf(url);
  if (ipaddr.isValid(host)) {
    const family = ipaddr.parse(host).kind() === "ipv6" ? 6 : 4;
    const refused = refusedRangeOf(host);
    if (refused && !options.allowPrivate) throw new SsrfRefusedError(`${host} is a ${refused} address`, host);
    return [{ address: host, family }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolver ?? systemResolver)(host);
  } catch (err) {
    throw new SsrfRefusedError(`${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, host, "unresolvable");
  }
  if (addresses.length === 0) throw new SsrfRefusedError(`${host} does not resolve`, host, "unresolvable");
  if (!options.allowPrivate) {
    for (const a of addresses) {
      const refused = refusedRangeOf(a.address);
      if (refused) throw new SsrfRefusedError(`${host} resolves to ${a.address}, a ${refused} address`, host);
    }
  }
  return addresses;
}

/** The first address to connect to for `url` (see resolveDestinationAddresses). */
export async function resolveDestination(url: URL, options: { allowPrivate: boolean; resolver?: Resolver }): Promise<ResolvedAddress> {
  return (await resolveDestinationAddresses(url, options))[0]!;
}
