import type { ReactNode } from "react";
import { DashboardShell } from "@/components/shell/dashboard-shell";
import { requireOwner } from "@/lib/dashboard/accounts";
import { signOutAction } from "../actions";

/** The owners' page: the frame without an account; anyone else gets a 404. */
export default async function AccountsLayout({ children }: { children: ReactNode }) {
  const owner = await requireOwner();
  return (
    <DashboardShell user={owner} signOut={signOutAction}>
      {children}
    </DashboardShell>
  );
}
