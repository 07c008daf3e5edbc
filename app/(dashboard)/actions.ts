"use server";

import { signOut } from "@/lib/auth/auth";
import { requireStaff } from "@/lib/auth/require-role";
import { endMySessions } from "@/lib/dashboard/sign-in";

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/login" });
}

/** "Sign out everywhere": ends every session of the signed-in user, in every browser, this one too (docs/adr/0507). */
export async function signOutEverywhereAction(): Promise<void> {
  const staff = await requireStaff();
  await endMySessions(staff.email);
  await signOut({ redirectTo: "/login" });
}
