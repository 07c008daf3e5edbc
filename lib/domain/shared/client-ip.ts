import ipaddr from "ipaddr.js";

/**
 * The client address of an HTTP request, derived in one place (pure):
 * `clientAddress` below. server.ts calls it once per request and hands the
 * result to everything else (sign-in throttle, tracking events, access log)
 * in CLIENT_ADDRESS_HEADER. docs/adr/0705-client-address-behind-n-proxies.md.
 */

/** The canonical text of an address ("::ffff:10.0.0.1" → "10.0.0.1"), or "" when it is not one. */
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

/** Longest X-Forwarded-For entry looked at: a bracketed IPv6 address with a zone and a port fits. */
const MAX_ENTRY_CHARS = 80;

const isPort = (text: string) => text.length >= 1 && text.length <= 5 && [...text].every((ch) => ch >= "0" && ch <= "9") && Number(text) <= 65535;

/**
 * The address in one X-Forwarded-For entry, or "" when the entry is not an
 * address. Accepted: `203.0.113.7`, `203.0.113.7:5123`, `2001:db8::1`,
 * `[2001:db8::1]`, `[2001:db8::1]:5123` (some proxies append the port).
 * IPv4 must be dotted-quad: "127.1" or "0x7f.1" are not what a proxy writes.
 */
export function forwardedEntryAddress(entry: string): string {
  let text = entry.trim();
  if (text.length === 0 || text.length > MAX_ENTRY_CHARS) return "";
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    if (end < 0) return "";
    const rest = text.slice(end + 1);
    if (rest !== "" && !(rest.startsWith(":") && isPort(rest.slice(1)))) return "";
    text = text.slice(1, end);
    return ipaddr.IPv6.isValid(text) ? normalizeIp(text) : "";
  }
  const colons = text.split(":").length - 1;
  if (colons === 0 || colons === 1) {
    const [host = "", port] = text.split(":");
    if (port !== undefined && !isPort(port)) return "";
    return ipaddr.IPv4.isValidFourPartDecimal(host) ? normalizeIp(host) : "";
  }
  return ipaddr.IPv6.isValid(text) ? normalizeIp(text) : "";
}

/**
 * The client address of a request (pure).
 *
 * - `trustedHops` 0 (MAILROOM_TRUST_PROXY unset, false or 0): the socket's
 *   address. X-Forwarded-For is ignored: anyone can send it.
 * - `trustedHops` N ≥ 1: Mailroom runs behind N proxies of its own, each of
 *   which appends exactly one entry to X-Forwarded-For (the address it was
 *   connected from). The last N entries are theirs; everything left of them
 *   was written by the client. The client's address is therefore the Nth
 *   entry from the right, and nothing else: never a search for a "public"
 *   entry, which lets a client pick any address it likes.
 * - Fewer entries than N: the request did not pass through every proxy (it
 *   reached an inner one, or Mailroom, directly): the socket address.
 * - The entry at that place is not an address (garbage, `unknown`, empty):
 *   the socket address.
 *
 * Several X-Forwarded-For header lines count as one list in their order
 * (RFC 9110 §5.3): pass them as an array, or joined with commas.
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | readonly string[] | undefined, trustedHops: number): string {
  const socket = normalizeIp(socketAddress ?? "");
  const lines = typeof forwardedFor === "string" ? [forwardedFor] : (forwardedFor ?? []);
  if (!(trustedHops >= 1) || lines.length === 0) return socket;
  // One list, in header order (Node's header size limit bounds its length).
  const entries = lines.join(",").split(",");
  if (entries.length < trustedHops) return socket;
  return forwardedEntryAddress(entries[entries.length - trustedHops]!) || socket;
}

/**
 * The request header that carries the client address from server.ts to
 * everything behind it: Next.js route handlers and server actions (which
 * cannot see the socket) and the API. server.ts sets it on every request to
 * `clientAddress(...)`, replacing whatever the client sent.
 */
export const CLIENT_ADDRESS_HEADER = "x-mailroom-client-address";

/** The client address of a request that went through server.ts (see CLIENT_ADDRESS_HEADER); "" when unknown. */
export function requestClientIp(headers: { get(name: string): string | null } | undefined): string {
  return normalizeIp(headers?.get(CLIENT_ADDRESS_HEADER) ?? "");
}
