import { cookies } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { ChangePasswordBanner } from "@/components/shell/change-password-banner";
import { DiskSpaceBanner } from "@/components/shell/disk-space-banner";
import { ReputationBanner } from "@/components/shell/reputation-banner";
import type { ResumeSending } from "@/components/shell/resume-sending-button";
import { MessageSearch } from "@/components/shell/message-search";
import { type NavLink, NavLinks } from "@/components/shell/nav-links";
import { NavMenu } from "@/components/shell/nav-menu";
import { parseTheme, THEME_COOKIE } from "@/components/shell/theme";
import { ThemeToggle } from "@/components/shell/theme-toggle";
import { Badge } from "@/components/ui/badge";
import { canAccess, groupNav, type NavGroup, navFor } from "@/lib/auth/roles";
import { accountBase, type DashboardAccount, type DashboardUser } from "@/lib/dashboard/access";
import { diskSpaceView, instanceInfo } from "@/lib/dashboard/instance";
import { reputationBanner } from "@/lib/dashboard/reputation";
import { AccountSwitcher } from "./account-switcher";

/**
 * The dashboard's frame: a left sidebar on wide screens, a "Menu" disclosure
 * below lg (components/shell/nav-menu.tsx), holding the account switcher for
 * users with more than one account, the MessageID search (across the user's
 * accounts), the navigation of the current account (by the user's role
 * there, grouped by lib/auth/roles.ts `NAV_ITEMS`; the owner's Accounts
 * and Queues pages under "Instance") and the user's block: change password, theme,
 * sign-out.
 */
export async function DashboardShell({
  user,
  account,
  signOut,
  resumeSending,
  children,
}: {
  user: DashboardUser;
  account?: DashboardAccount;
  signOut: () => Promise<void>;
  /** An owner's resume of a paused account (the account layout's server action). */
  resumeSending?: ResumeSending;
  children: ReactNode;
}) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  // The sandbox inbox exists only while the sandbox transport plays the MX.
  const { sandbox } = instanceInfo();
  const disk = diskSpaceView();
  const base = account ? accountBase(account.accountId) : undefined;
  const items: (NavLink & { group: NavGroup })[] =
    account && base
      ? navFor(account.role)
          .filter((item) => item.area !== "sandbox" || sandbox)
          .map(({ href, label, group }) => ({ href: href === "/" ? base : `${base}${href}`, label, exact: href === "/", group }))
      : [];
  if (user.isOwner) {
    items.push({ href: "/accounts", label: "Accounts", exact: false, group: "Instance" });
    items.push({ href: "/instance/queues", label: "Queues", exact: false, group: "Instance" });
    items.push({ href: "/instance/egress", label: "Egress", exact: false, group: "Instance" });
  }
  // The guardrails' banner is for those who can act on the list: admins, marketing, owners (docs/adr/0136).
  const seesReputation = account && (user.isOwner || account.role === "admin" || account.role === "marketing");
  const reputation = seesReputation ? await reputationBanner(account.accountId) : undefined;
  const searchable = user.accounts.some((a) => canAccess(a.role, "messages"));
  return (
    <div className="flex min-h-screen flex-col lg:flex-row">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 dark:focus:bg-slate-900"
      >
        Skip to content
      </a>
      <NavMenu
        brand={
          <Link href={base ?? "/"} className="text-lg font-bold tracking-tight">
            <span aria-hidden>✉ </span>Mailroom
          </Link>
        }
      >
        {account &&
          (user.accounts.length > 1 ? (
            <AccountSwitcher
              current={account.accountId}
              accounts={user.accounts.map(({ accountId, accountName, role }) => ({ accountId, accountName, role }))}
            />
          ) : (
            <span className="truncate px-3 text-sm font-medium" data-testid="current-account" title={account.accountName}>
              {account.accountName}
            </span>
          ))}
        {searchable && <MessageSearch />}
        <nav aria-label="Main">
          <NavLinks groups={groupNav(items)} />
        </nav>
        <div className="mt-auto flex flex-col gap-2 border-t border-slate-200 px-3 pt-3 dark:border-slate-800" data-testid="user-menu">
          <span className="truncate text-sm" data-testid="current-user" title={user.email}>
            {user.email}
          </span>
          <Link
            href="/account/password"
            className="self-start whitespace-nowrap text-sm text-slate-600 underline-offset-2 hover:underline dark:text-slate-400"
          >
            Change password
          </Link>
          <div className="flex items-center gap-2">
            <ThemeToggle initial={theme} />
            {account && <Badge tone="accent">{account.role}</Badge>}
            <form action={signOut} className="ml-auto">
              <button
                type="submit"
                className="whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
              >
                Sign out
              </button>
            </form>
          </div>
        </div>
      </NavMenu>
      <main id="main" className="min-w-0 flex-1 px-4 py-6 lg:px-8">
        <div className="mx-auto w-full max-w-7xl">
          {disk && <DiskSpaceBanner disk={disk} />}
          {user.mustChangePassword && <ChangePasswordBanner />}
          {account && reputation && (
            <ReputationBanner banner={reputation} accountId={account.accountId} resume={user.isOwner ? resumeSending : undefined} />
          )}
          {children}
        </div>
      </main>
    </div>
  );
}
