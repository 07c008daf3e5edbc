import type { ReactNode } from "react";
import { DashboardShell } from "@/components/shell/dashboard-shell";
import { requireQueuesOwner } from "@/lib/dashboard/queues";
import { signOutAction } from "../actions";

/** The instance's pages (owners only): the frame without an account; anyone else gets the forbidden page. */
export default async function InstanceLayout({ children }: { children: ReactNode }) {
  const owner = await requireQueuesOwner();
  return (
    <DashboardShell user={owner} signOut={signOutAction}>
      {children}
    </DashboardShell>
  );
}
