import ipaddr from "ipaddr.js";

/**
 * The client address of a tracking request (pure). Behind a trusted proxy
 * (MAILROOM_TRUST_PROXY) it is the first untrusted hop of X-Forwarded-For,
 * read from the right: entries appended by our own (private) proxies are
 * skipped. Without trust the header is ignored: anyone can send it.
 */
export function normalizeIp(ip: string): string {
  const t = ip.trim().replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(t)) return "";
  const parsed = ipaddr.parse(t);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toString();
}

export function isPublicIp(ip: string): boolean {
  const n = normalizeIp(ip);
  if (!n) return false;
  return ipaddr.parse(n).range() === "unicast";
}

export function clientIp(remoteAddress: string | undefined, forwardedFor: string | undefined, trustProxy: boolean): string {
  const remote = normalizeIp(remoteAddress ?? "");
  if (!trustProxy || !forwardedFor) return remote;
  const hops = forwardedFor
    .split(",")
    .map((h) => normalizeIp(h))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (isPublicIp(hops[i]!)) return hops[i]!;
  return hops[0] ?? remote;
}

/**
 * The request header that carries the socket's address to Next.js route
 * handlers and server actions (which cannot see the socket). server.ts sets
 * it on every request, replacing whatever the client sent.
 */
export const CLIENT_ADDRESS_HEADER = "x-mailroom-client-address";

/** The client address of a request that went through server.ts (see CLIENT_ADDRESS_HEADER). */
export function requestClientIp(headers: { get(name: string): string | null } | undefined, trustProxy: boolean): string {
  return clientIp(headers?.get(CLIENT_ADDRESS_HEADER) ?? undefined, headers?.get("x-forwarded-for") ?? undefined, trustProxy);
}
