import type { AppContext } from "../context";
import { getStaffUser, type StaffUser } from "../domain/staff-users";

/**
 * The session version of a dashboard session (docs/adr/0507-session-version.md):
 * the staff row's `session_version` when the session began, in the JWT as
 * `sv`. The jwt callback compares it with the row it already reads on every
 * request (no extra query): a different value ends the session.
 */

/** At sign-in: the version the password was checked against, else (single sign-on) the staff row's, else 0. */
export async function sessionVersionAtSignIn(database: AppContext["database"], user: { email?: string | null; sessionVersion?: unknown }): Promise<number> {
  if (typeof user.sessionVersion === "number") return user.sessionVersion;
  if (!user.email) return 0;
  return (await getStaffUser(database, user.email))?.sessionVersion ?? 0;
}

/** Whether a session still holds: its version is the staff row's (a session from before versions counts as 0). */
export function sessionVersionCurrent(token: Record<string, unknown>, staff: Pick<StaffUser, "sessionVersion">): boolean {
  const sv = typeof token.sv === "number" ? token.sv : 0;
  return sv === staff.sessionVersion;
}
