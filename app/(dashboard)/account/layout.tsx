import type { ReactNode } from "react";
import { DashboardShell } from "@/components/shell/dashboard-shell";
import { requireDashboardUser } from "@/lib/dashboard/access";
import { signOutAction } from "../actions";

/** The user's own pages (password): the frame without an account. */
export default async function OwnAccountLayout({ children }: { children: ReactNode }) {
  const user = await requireDashboardUser("/account/password");
  return (
    <DashboardShell user={user} signOut={signOutAction}>
      {children}
    </DashboardShell>
  );
}
