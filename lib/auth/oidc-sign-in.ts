import type { AppContext } from "../context";
import { addSsoStaffUser, getStaffUser, recordStaffSignIn } from "../domain/staff/staff-users";
import type { StaffRole } from "../contract/staff-roles";
import { decideOidcSignIn, type OidcAllowList } from "./oidc-policy";

/**
 * The OIDC sign-in as Auth.js's signIn callback runs it (auth-config.ts),
 * with the database: the policy of oidc-policy.ts (verified email; existing
 * staff; else the allow-list), then the staff user for an admitted new
 * identity (no membership: ADR 0511). True admits; false makes Auth.js
 * answer AccessDenied.
 */
export async function admitOidcIdentity(
  database: AppContext["database"],
  claims: Record<string, unknown> | null | undefined,
  settings: { allowedDomains: readonly string[]; allowedEmails: readonly string[]; role: StaffRole },
): Promise<boolean> {
  const raw = typeof claims?.email === "string" ? claims.email : "";
  const existing = raw ? await getStaffUser(database, raw) : undefined;
  const allow: OidcAllowList = { domains: settings.allowedDomains, emails: settings.allowedEmails };
  const decision = decideOidcSignIn(claims, allow, (email) => existing?.email === email);
  if (!decision.allow) return false;
  if (decision.create) {
    const name = typeof claims?.name === "string" ? claims.name : "";
    await addSsoStaffUser(database, { email: decision.email, role: settings.role, name });
  }
  await recordStaffSignIn(database, decision.email);
  return true;
}
