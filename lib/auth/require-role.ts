import "server-only";
import { forbidden, redirect } from "next/navigation";
import { getStaffSession, type StaffSession } from "./auth";
import { canAccess, homeFor, type Area } from "./roles";

/**
 * THE authorisation check of the dashboard: every page, server action and
 * route handler calls it first. Not signed in → the sign-in page; signed in
 * without the role → 403 (app/forbidden.tsx). Server actions are public POST
 * endpoints, so they call it too, whatever the navigation shows.
 */
export async function requireRole(area: Area, returnTo?: string, options: { onDenied?: "forbidden" | "home" } = {}): Promise<StaffSession> {
  const staff = await getStaffSession();
  if (!staff) redirect(returnTo ? `/login?callbackUrl=${encodeURIComponent(returnTo)}` : "/login");
  if (!canAccess(staff.role, area)) {
    // `home`: for the landing page, a role without it goes to its own home instead of a 403.
    if (options.onDenied === "home") redirect(homeFor(staff.role));
    forbidden();
  }
  return staff;
}

/** Any signed-in staff member (the dashboard shell). */
export async function requireStaff(returnTo?: string): Promise<StaffSession> {
  const staff = await getStaffSession();
  if (!staff) redirect(returnTo ? `/login?callbackUrl=${encodeURIComponent(returnTo)}` : "/login");
  return staff;
}

/** For route handlers: the session, or the 401/403 response to return. */
export async function requireRoleForRoute(area: Area): Promise<StaffSession | Response> {
  const staff = await getStaffSession();
  if (!staff) return Response.json({ error: "Sign in first" }, { status: 401 });
  if (!canAccess(staff.role, area)) return Response.json({ error: "Your role may not use this" }, { status: 403 });
  return staff;
}
