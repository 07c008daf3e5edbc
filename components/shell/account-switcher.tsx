"use client";

import { usePathname, useRouter } from "next/navigation";
import { useId } from "react";

export interface SwitcherAccount {
  accountId: string;
  accountName: string;
  role: string;
}

/**
 * The header's account switcher (users with more than one account): opens
 * the same page of the chosen account (`/a/<id>/events` → `/a/<other>/events`),
 * without the current page's filters, which belong to the other account's data.
 */
export function AccountSwitcher({ accounts, current }: { accounts: SwitcherAccount[]; current: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const id = useId();
  const section = pathname.split("/")[3] ?? "";
  // A message or a capture belongs to one account: switch to the list instead.
  const target = (accountId: string) => `/a/${accountId}${section ? `/${section === "messages" ? "events" : section}` : ""}`;
  return (
    <div className="flex items-center gap-1">
      <label htmlFor={id} className="sr-only">
        Account
      </label>
      <select
        id={id}
        data-testid="account-switcher"
        value={current}
        onChange={(e) => router.push(target(e.target.value))}
        className="h-9 max-w-48 truncate rounded-md border border-slate-300 bg-white px-2 text-sm font-medium text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
      >
        {accounts.map((a) => (
          <option key={a.accountId} value={a.accountId}>
            {a.accountName} ({a.role})
          </option>
        ))}
      </select>
    </div>
  );
}
