import { headers } from "next/headers";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardShell } from "@/components/shell/dashboard-shell";
import { requireDashboardUser } from "@/lib/dashboard/access";
import { signOutAction } from "../../actions";
import { resumeSendingAction } from "./actions";

/** The pages of one account (`/a/<account id>/…`): a URL of an account the user may not open is a 404. */
export default async function AccountLayout({ children, params }: { children: ReactNode; params: Promise<{ account: string }> }) {
  const { account: accountId } = await params;
  const user = await requireDashboardUser((await headers()).get("x-mailroom-path") ?? undefined);
  const account = user.accounts.find((a) => a.accountId === accountId);
  if (!account) notFound();
  return (
    <DashboardShell user={user} account={account} signOut={signOutAction} resumeSending={resumeSendingAction}>
      {children}
    </DashboardShell>
  );
}
