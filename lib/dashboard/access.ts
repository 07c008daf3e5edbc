import "server-only";
import { forbidden, notFound, redirect } from "next/navigation";
import { cache } from "react";
import { getStaffSession, staffSessionUnchecked } from "../auth/auth";
import { safeReturnPath } from "../auth/safe-return";
import { OUTAGE_MESSAGES, outageMessage } from "../domain/shared/outage-message";
import { homeFor, type Area } from "../auth/roles";
import { accountsVisibleTo } from "../domain/staff/staff-users";
import { getServerContext } from "../runtime";
import { accountBase, decideAccess, type AccessCheck, type AccountAccess, type DashboardUser } from "./decide";

export * from "./decide";

/**
 * THE authorisation check of the dashboard (ADR 0510): who is signed in,
 * which accounts they may open (memberships; every account for an owner),
 * and their role in the account of the URL. Every page, server action and
 * route handler goes through here, via the functions of lib/dashboard.
 * An account the user may not open is a 404, not a 403: its existence is
 * not disclosed.
 */

/** The signed-in staff member with their accounts, or undefined. Once per request. */
export const getDashboardUser = cache(async (): Promise<DashboardUser | undefined> => {
  const session = await getStaffSession();
  if (!session) return undefined;
  const visible = await accountsVisibleTo(getServerContext().database, session.email);
  // No staff user (removed since): nobody. A single-sign-on identity is a staff user too, with the accounts granted to it (ADR 0511).
  if (!visible) return undefined;
  const { user, accounts } = visible;
  return { email: user.email, name: user.name || user.email, isOwner: user.isOwner, mustChangePassword: session.mustChangePassword, accounts };
});

/**
 * The signed-in staff member, else sign-in. A database that does not answer
 * (the session's check, or the accounts' read) is neither: the page that
 * says so, which comes back here once it answers (ADR 0513).
 */
export async function requireDashboardUser(returnTo?: string): Promise<DashboardUser> {
  const { user, outage } = await dashboardUserOrOutage();
  if (outage) databaseUnavailable(returnTo);
  if (!user) redirect(returnTo ? `/login?callbackUrl=${encodeURIComponent(returnTo)}` : "/login");
  return user;
}

/**
 * The signed-in member, or the outage that kept the check from telling (the
 * session's check, or the accounts' read: ADR 0513). Not signed in is neither.
 */
export async function dashboardUserOrOutage(): Promise<{ user?: DashboardUser; outage?: string }> {
  try {
    const user = await getDashboardUser();
    if (!user && (await staffSessionUnchecked())) return { outage: DATABASE_UNAVAILABLE_MESSAGE };
    return { user };
  } catch (err) {
    const outage = outageMessage(err);
    if (outage === undefined) throw err;
    return { outage };
  }
}

/** What the page of an unanswering database says (the dashboard's actions say the same). */
export const DATABASE_UNAVAILABLE_MESSAGE = OUTAGE_MESSAGES.unavailable;

function databaseUnavailable(returnTo: string | undefined): never {
  redirect(`/unavailable?next=${encodeURIComponent(safeReturnPath(returnTo))}`);
}

/** The non-throwing check (server actions and route handlers answer with it); an outage is a 503 that says so, not "Sign in first". */
export async function checkAccess(accountId: unknown, area: Area): Promise<AccessCheck> {
  const { user, outage } = await dashboardUserOrOutage();
  if (outage) return { ok: false, status: 503, error: outage };
  return decideAccess(user, accountId, area);
}

/**
 * For pages: not signed in → sign-in; not a member → 404; without the role
 * → 403, or (`onDenied: "home"`) the role's own home in the account.
 */
export async function requireAccess(
  accountId: string,
  area: Area,
  options: { returnTo?: string; onDenied?: "forbidden" | "home" } = {},
): Promise<AccountAccess> {
  await requireDashboardUser(options.returnTo);
  const check = await checkAccess(accountId, area);
  if (check.ok) return check.access;
  if (check.status === 404) notFound();
  const account = (await getDashboardUser())!.accounts.find((a) => a.accountId === accountId)!;
  if (options.onDenied === "home") redirect(`${accountBase(accountId)}${homeFor(account.role).replace(/^\/$/, "")}`);
  forbidden();
}

/** For route handlers: the access, or the 401/403/404 response to return. */
export async function accessForRoute(accountId: string, area: Area): Promise<AccountAccess | Response> {
  const check = await checkAccess(accountId, area);
  if (check.ok) return check.access;
  return Response.json({ error: check.error }, { status: check.status, ...(check.status === 503 && { headers: { "Retry-After": "5" } }) });
}
