import { looksLikeEmailAddress } from "../contract/plausible-email";

/**
 * Who may sign in through the generic OIDC provider (ADR 0511), pure: the
 * Auth.js signIn callback (auth-config.ts) feeds it the ID token's claims,
 * the allow-list of configuration and whether a staff user has the email.
 *
 * - The email claim counts only with `email_verified === true` (the boolean,
 *   not the string "true"): an identity provider that lets a user type any
 *   address must not make them the staff user with that address.
 * - A verified email of an existing staff user signs in as that user.
 * - A verified email that is not a staff user yet is admitted only when its
 *   address or its domain is on the allow-list (AUTH_OIDC_ALLOWED_EMAILS,
 *   AUTH_OIDC_ALLOWED_DOMAINS); it then becomes a staff user with no
 *   account membership until one is granted (an invitation, an owner).
 *   Without an allow-list, only existing staff may sign in.
 */

export interface OidcAllowList {
  /** Lowercased domains (exact match of the part after the @, no subdomains). */
  domains: readonly string[];
  /** Lowercased addresses. */
  emails: readonly string[];
}

export type OidcDecision =
  | { allow: true; email: string; create: boolean }
  | { allow: false; reason: "no-email" | "unverified" | "not-listed" };

/** The email claim of an ID token (or userinfo), lowercased; undefined when absent or not an address. */
export function claimedEmail(claims: Record<string, unknown> | null | undefined): string | undefined {
  const raw = claims?.email;
  if (typeof raw !== "string") return undefined;
  const email = raw.trim().toLowerCase();
  if (email.length === 0 || email.length > 254 || !looksLikeEmailAddress(email)) return undefined;
  return email;
}

export function isListed(email: string, allow: OidcAllowList): boolean {
  if (allow.emails.includes(email)) return true;
  const domain = email.slice(email.lastIndexOf("@") + 1);
  return allow.domains.includes(domain);
}

export function decideOidcSignIn(
  claims: Record<string, unknown> | null | undefined,
  allow: OidcAllowList,
  isStaff: (email: string) => boolean,
): OidcDecision {
  const email = claimedEmail(claims);
  if (!email) return { allow: false, reason: "no-email" };
  if (claims?.email_verified !== true) return { allow: false, reason: "unverified" };
  if (isStaff(email)) return { allow: true, email, create: false };
  if (isListed(email, allow)) return { allow: true, email, create: true };
  return { allow: false, reason: "not-listed" };
}
