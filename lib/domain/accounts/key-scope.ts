import { domainToASCII } from "node:url";
import { MAX_KEY_SENDER_DOMAINS, type ApiKeyScope } from "../../contract/api-keys";
import { DomainError } from "../shared/domain-error";
import { isValidDomainName, normalizeDomainName } from "./sender-domains";

/**
 * What an API key's scope lets it do (docs/contract.md §17.2, docs/adr/0130):
 * pure functions, decided by method and path only so that an endpoint added
 * later falls under the rule of its kind without a table to update.
 *
 * - `send`: every non-GET request on `/email` and below (POST /email, the
 *   batch endpoint, changes to scheduled messages such as PATCH /email/{id}
 *   and POST /email/{id}/cancel), and SMTP submission;
 * - `read`: every GET (and HEAD) but GET /domains/{domain}/dmarc;
 * - `full`: everything, including what neither of the others covers
 *   (webhooks, suppressions and other changes).
 */

/** The scope a request needs; `path` is relative to /api/v1 (a route pattern or a concrete path). */
export function requiredScope(method: string, path: string): Exclude<ApiKeyScope, "full"> | "full" {
  const m = method.toUpperCase();
  const segments = path.split("/").filter((segment) => segment !== "").map((segment) => segment.toLowerCase());
  // The one read that needs a full key: DMARC reports name the infrastructure of everyone who sends as the domain (docs/adr/0809).
  if (segments.length === 3 && segments[0] === "domains" && segments[2] === "dmarc") return "full";
  if (m === "GET" || m === "HEAD") return "read";
  if (segments[0] === "email") return "send";
  return "full";
}

export function scopeAllows(keyScope: ApiKeyScope, needed: ApiKeyScope): boolean {
  return keyScope === "full" || keyScope === needed;
}

/** The 403 message of a refused request: it names the key's scope and the one needed. */
export function scopeRefusal(keyScope: ApiKeyScope, needed: ApiKeyScope): string {
  const which = needed === "full" ? "a full key" : `a ${needed} or full key`;
  return `API key scope does not allow this request: this key's scope is ${keyScope}, the request needs ${which}`;
}

/** Whether SMTP submission accepts the key (its AUTH). */
export function scopeMaySubmit(keyScope: ApiKeyScope): boolean {
  return scopeAllows(keyScope, "send");
}

/** The ASCII, lowercase form of a domain, as a key's list stores it. */
export function asciiDomain(domain: string): string {
  const name = normalizeDomainName(domain);
  return (domainToASCII(name) || name).toLowerCase();
}

/** Whether a key limited to `senderDomains` (null: no limit) may send From `domain`. */
export function keyMaySendFrom(senderDomains: readonly string[] | null, domain: string): boolean {
  return senderDomains === null || senderDomains.includes(asciiDomain(domain));
}

/**
 * Whether the key may send with the account's templates. A template belongs
 * to no sender domain, and sending one to oneself is reading it: a key
 * limited to sender domains may not, unless its scope reads templates anyway
 * (a `full` key); an unlimited `send` key reaches the whole account already.
 */
export function keyMaySendTemplates(scope: ApiKeyScope, senderDomains: readonly string[] | null): boolean {
  return senderDomains === null || scopeAllows(scope, "read");
}

/** The 403 message of a template send by a key limited to sender domains (docs/contract.md §17.3). */
export const TEMPLATE_REFUSAL_FOR_DOMAIN_KEY =
  "API key scope does not allow this request: this key is limited to sender domains and templates belong to no domain; send with a key that is not limited";

/** Checks and normalises the domains a key is limited to; a name that is not a domain is a DomainError. */
export function normalizeKeySenderDomains(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of names) {
    if (raw.trim() === "") continue;
    const name = asciiDomain(raw);
    if (!isValidDomainName(name)) throw new DomainError(`"${raw}" is not a domain name`);
    out.add(name);
  }
  if (out.size > MAX_KEY_SENDER_DOMAINS) throw new DomainError(`A key may be limited to at most ${MAX_KEY_SENDER_DOMAINS} domains`);
  if (out.size === 0) throw new DomainError("No domain given: leave the list out for a key that may send from every verified domain");
  return [...out].sort();
}
