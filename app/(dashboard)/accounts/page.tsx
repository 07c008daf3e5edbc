import type { Metadata } from "next";
import { listAllAccounts, NEW_ACCOUNT_PLAN, PLAN_NAMES, requireOwner } from "@/lib/dashboard/accounts";
import { AccountsPanel } from "./_components/accounts-panel";
import { EndSessionsCard } from "./_components/end-sessions-card";

export const metadata: Metadata = { title: "Accounts" };
export const dynamic = "force-dynamic";

/** Every account of the install, for owners (ADR 0510). */
export default async function AccountsPage() {
  const owner = await requireOwner();
  const accounts = await listAllAccounts(owner);
  const memberOf = new Map(owner.accounts.filter((a) => a.member).map((a) => [a.accountId, a.role]));
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Accounts</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Every sending account of this install. As an owner you may open each one (as admin where you are not a member), create accounts,
          suspend them and change their daily limit (empty: the plan's). Limits, domains and keys: open the account, or use <code>mailroom accounts</code>.
        </p>
      </div>
      <AccountsPanel
        plans={PLAN_NAMES}
        defaultPlan={NEW_ACCOUNT_PLAN}
        accounts={accounts.map((a) => ({
          accountId: a.accountId,
          name: a.name,
          plan: a.plan,
          status: a.status,
          isDefault: a.isDefault,
          perDay: a.limits.perDay,
          createdAt: a.createdAt,
          role: memberOf.get(a.accountId) ?? null,
        }))}
      />
      <EndSessionsCard />
    </div>
  );
}
