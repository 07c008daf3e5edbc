import "server-only";
import NextAuth from "next-auth";
import { cache } from "react";
import { buildAuthConfig } from "./auth-config";
import { isRole, type Role } from "./roles";

/**
 * Auth.js v5 for the staff dashboard (configuration in auth-config.ts,
 * decision in docs/adr/0500-dashboard-sessions-and-roles.md).
 */

export const { handlers, auth, signIn, signOut } = NextAuth(() => buildAuthConfig());

export interface StaffSession {
  email: string;
  name: string;
  role: Role;
  /** Signed in with a password generated for them (first start, CLI): offered the change (ADR 0505). */
  mustChangePassword: boolean;
}

/** The request's session as the jwt callback left it: the staff member, and whether it could not be checked. */
const readSession = cache(async (): Promise<{ staff?: StaffSession; unchecked: boolean }> => {
  const session = await auth();
  const user = session?.user as { email?: string | null; name?: string | null; role?: unknown; mustChangePassword?: unknown; unchecked?: unknown } | undefined;
  const unchecked = user?.unchecked === true;
  if (!user?.email || !isRole(user.role)) return { unchecked };
  return { staff: { email: user.email, name: user.name ?? user.email, role: user.role, mustChangePassword: user.mustChangePassword === true }, unchecked };
});

/**
 * The signed-in staff member, or undefined (no session, or no valid role).
 * Once per request: the layout and the page both ask (React `cache`).
 */
export const getStaffSession = cache(async (): Promise<StaffSession | undefined> => (await readSession()).staff);

/** A session cookie is there but the database did not answer its check (ADR 0513): not signed out, not signed in. */
export const staffSessionUnchecked = cache(async (): Promise<boolean> => (await readSession()).unchecked);
