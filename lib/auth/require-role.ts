import "server-only";
import { redirect } from "next/navigation";
import { getStaffSession, type StaffSession } from "./auth";

/**
 * Any signed-in staff member (pages that belong to no account: the user's
 * own password). Account pages check membership and role through
 * lib/dashboard/access.ts (ADR 0510).
 */
export async function requireStaff(returnTo?: string): Promise<StaffSession> {
  const staff = await getStaffSession();
  if (!staff) redirect(returnTo ? `/login?callbackUrl=${encodeURIComponent(returnTo)}` : "/login");
  return staff;
}
