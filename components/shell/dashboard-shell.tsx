import { cookies } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { ChangePasswordBanner } from "@/components/shell/change-password-banner";
import { DiskSpaceBanner } from "@/components/shell/disk-space-banner";
import { MessageSearch } from "@/components/shell/message-search";
import { NavLinks } from "@/components/shell/nav-links";
import { parseTheme, THEME_COOKIE } from "@/components/shell/theme";
import { ThemeToggle } from "@/components/shell/theme-toggle";
import { Badge } from "@/components/ui/badge";
import { canAccess, navFor } from "@/lib/auth/roles";
import { accountBase, type DashboardAccount, type DashboardUser } from "@/lib/dashboard/access";
import { diskSpaceView, instanceInfo } from "@/lib/dashboard/instance";
import { AccountSwitcher } from "./account-switcher";

/**
 * The dashboard's frame: navigation of the current account (by the user's
 * role there), the account switcher for users with more than one account,
 * the MessageID search (across the user's accounts), the user, sign-out.
 */
export async function DashboardShell({
  user,
  account,
  signOut,
  children,
}: {
  user: DashboardUser;
  account?: DashboardAccount;
  signOut: () => Promise<void>;
  children: ReactNode;
}) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  // The sandbox inbox exists only while the sandbox transport plays the MX.
  const { sandbox } = instanceInfo();
  const disk = diskSpaceView();
  const base = account ? accountBase(account.accountId) : undefined;
  const links =
    account && base
      ? navFor(account.role)
          .filter((item) => item.area !== "sandbox" || sandbox)
          .map(({ href, label }) => ({ href: href === "/" ? base : `${base}${href}`, label, exact: href === "/" }))
      : [];
  if (user.isOwner) links.push({ href: "/accounts", label: "Accounts", exact: false });
  const searchable = user.accounts.some((a) => canAccess(a.role, "messages"));
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 dark:focus:bg-slate-900"
      >
        Skip to content
      </a>
      <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2">
          <Link href={base ?? "/"} className="text-lg font-bold tracking-tight">
            <span aria-hidden>✉ </span>Mailroom
          </Link>
          {account &&
            (user.accounts.length > 1 ? (
              <AccountSwitcher
                current={account.accountId}
                accounts={user.accounts.map(({ accountId, accountName, role }) => ({ accountId, accountName, role }))}
              />
            ) : (
              <span className="max-w-48 truncate text-sm font-medium" data-testid="current-account">
                {account.accountName}
              </span>
            ))}
          <nav aria-label="Main" className="order-last w-full min-w-0 md:order-none md:w-auto md:flex-1">
            <NavLinks links={links} />
          </nav>
          <div className="ml-auto flex items-center gap-2">
            {searchable && <MessageSearch />}
            <ThemeToggle initial={theme} />
            <div className="hidden flex-col items-end leading-tight sm:flex">
              <span className="max-w-48 truncate text-sm" data-testid="current-user">
                {user.email}
              </span>
              <Link href="/account/password" className="text-xs text-slate-600 underline-offset-2 hover:underline dark:text-slate-400">
                Change password
              </Link>
              {account && <Badge tone="accent">{account.role}</Badge>}
            </div>
            <form action={signOut}>
              <button
                type="submit"
                className="whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
              >
                Sign out
              </button>
            </form>
          </div>
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-6">
        {disk && <DiskSpaceBanner disk={disk} />}
        {user.mustChangePassword && <ChangePasswordBanner />}
        {children}
      </main>
    </div>
  );
}
