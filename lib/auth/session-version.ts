import type { AppContext } from "../context";
import { getStaffUser, normalizeStaffEmail, type StaffUser } from "../domain/staff/staff-users";

/**
 * What binds a dashboard session to its staff user (docs/adr/0507-session-version.md,
 * docs/adr/0509-session-bound-to-the-user-row.md): the staff row's id (`uid`,
 * never reused: a user removed and added again with the same email is
 * another row) and its `session_version` when the session began (`sv`), in
 * the JWT. The jwt callback reads the row by `uid` on every request (one
 * indexed query) and ends the session unless id, version and email all
 * match.
 */

export interface SessionBinding {
  uid: string;
  sv: number;
}

/**
 * At sign-in: a password sign-in carries the row the password was checked
 * against (its id and version); a single sign-on has no staff row in hand,
 * so the row of its email is read (admitOidcIdentity made sure there is one).
 * Undefined without a row: the session then holds for no request.
 */
export async function sessionBindingAtSignIn(
  database: AppContext["database"],
  user: { id?: string | null; email?: string | null; sessionVersion?: unknown },
  provider: string,
): Promise<SessionBinding | undefined> {
  if (provider === "credentials") {
    return typeof user.id === "string" && typeof user.sessionVersion === "number" ? { uid: user.id, sv: user.sessionVersion } : undefined;
  }
  if (!user.email) return undefined;
  const staff = await getStaffUser(database, user.email);
  return staff ? { uid: staff.id, sv: staff.sessionVersion } : undefined;
}

/** The row id a session names; undefined for a session from before ids (it holds no more: signed out). */
export function sessionUserId(token: Record<string, unknown>): string | undefined {
  return typeof token.uid === "string" && token.uid.length > 0 ? token.uid : undefined;
}

/**
 * Whether a session still holds for this staff row: the same row (id), the
 * same version, the same email (an identity provider's may differ in case).
 */
export function sessionHolds(token: Record<string, unknown>, staff: Pick<StaffUser, "id" | "email" | "sessionVersion">): boolean {
  if (sessionUserId(token) !== staff.id || token.sv !== staff.sessionVersion) return false;
  return typeof token.email === "string" && normalizeStaffEmail(token.email) === staff.email;
}
