import ipaddr from "ipaddr.js";

/**
 * The one address-range policy of outbound connections to hosts that a
 * customer or the DNS names: webhook destinations (lib/webhooks/ssrf-guard.ts)
 * and direct-MX delivery (lib/delivery/transports.ts). Only public unicast
 * addresses pass; loopback, private, link-local, CGNAT, multicast, reserved,
 * unspecified, IPv4-mapped/-compatible and the like are refused unless the
 * operator allows private destinations for that use.
 */

/** Why an address is refused (its ipaddr.js range name), or undefined when it is a public unicast address. */
export function refusedRangeOf(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return "invalid";
  const ip = ipaddr.parse(address);
  const range = ip.range();
  if (range !== "unicast") return range;
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    // IPv4-mapped ::ffff:a.b.c.d is refused above (range ipv4Mapped); the
    // deprecated IPv4-compatible ::a.b.c.d reaches IPv4 hosts too: refuse it.
    if (v6.match(ipaddr.IPv6.parse("::"), 96)) return "ipv4Compatible";
  }
  return undefined;
}

export function isPublicAddress(address: string): boolean {
  return refusedRangeOf(address) === undefined;
}
