import { domainToASCII } from "node:url";

/**
 * Which inbound route a recipient address belongs to (docs/contract.md §13).
 * Pure. A route's `match` is a lowercase `local@domain` (exact) or
 * `*@domain` (the whole domain), the domain in its ASCII (xn--) form.
 * An exact route wins over the domain's; `local+tag@domain` matches a route
 * for `local@domain` (or the domain's) and reports `tag` as MailboxHash.
 * Only a route for the tagged address itself takes the tag as part of the
 * address (MailboxHash empty).
 */

/** Longest address considered (RFC 5321: 64 + 1 + 255); anything longer matches nothing. */
export const MAX_ADDRESS_LENGTH = 320;

export interface ParsedAddress {
  /** Lowercase local part as given (tag included). */
  local: string;
  /** The local part before the first `+`. */
  base: string;
  /** After the first `+`; empty when none. */
  tag: string;
  /** Lowercase ASCII domain. */
  domain: string;
}

/** An envelope address split into its parts; undefined when it is not `local@domain`. Linear, no regex. */
export function parseAddress(address: string): ParsedAddress | undefined {
  if (address.length === 0 || address.length > MAX_ADDRESS_LENGTH) return undefined;
  const at = address.lastIndexOf("@");
  if (at <= 0 || at === address.length - 1) return undefined;
  const local = address.slice(0, at).toLowerCase();
  const domain = asciiDomain(address.slice(at + 1));
  if (!domain) return undefined;
  const plus = local.indexOf("+");
  return { local, base: plus < 0 ? local : local.slice(0, plus), tag: plus < 0 ? "" : address.slice(0, at).slice(plus + 1), domain };
}

/** Lowercase ASCII form of a domain; empty when it is not a domain name. */
export function asciiDomain(domain: string): string {
  const trimmed = domain.trim().replace(/\.$/, "");
  if (!trimmed || trimmed.length > 253 || trimmed.includes("@") || trimmed.includes("*")) return "";
  return domainToASCII(trimmed).toLowerCase();
}

export type RouteMatch = { kind: "exact" | "domain"; match: string; domain: string };

/** The stored form of a route's Match as typed by a client; undefined when it is neither form. */
export function normaliseMatch(input: string): RouteMatch | undefined {
  const text = input.trim();
  if (text.startsWith("*@")) {
    const domain = asciiDomain(text.slice(2));
    if (!domain || !domain.includes(".")) return undefined;
    return { kind: "domain", match: `*@${domain}`, domain };
  }
  const parsed = parseAddress(text);
  if (!parsed || !parsed.domain.includes(".") || parsed.local.includes("*") || parsed.local.includes("@")) return undefined;
  return { kind: "exact", match: `${parsed.local}@${parsed.domain}`, domain: parsed.domain };
}

/** The route matches to look up for an address, best first, each with the MailboxHash it would report. */
export function candidateMatches(address: string): { match: string; mailboxHash: string }[] {
  const p = parseAddress(address);
  if (!p) return [];
  const out = [{ match: `${p.local}@${p.domain}`, mailboxHash: "" }];
  if (p.tag) out.push({ match: `${p.base}@${p.domain}`, mailboxHash: p.tag });
  out.push({ match: `*@${p.domain}`, mailboxHash: p.tag });
  return out;
}

/** The best route among `routes` (any that share a candidate match) for `address`, with its MailboxHash. */
export function pickRoute<R extends { match: string }>(routes: readonly R[], address: string): { route: R; mailboxHash: string } | undefined {
  for (const c of candidateMatches(address)) {
    const route = routes.find((r) => r.match === c.match);
    if (route) return { route, mailboxHash: c.mailboxHash };
  }
  return undefined;
}
