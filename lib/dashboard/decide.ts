import { canAccess, type Area, type Role } from "../auth/roles";
import type { VisibleAccount } from "../domain/staff/staff-users";

/**
 * The dashboard's access decision (ADR 0510), pure: who may open which
 * account, with which role. access.ts feeds it the signed-in user; nothing
 * else decides.
 */

export type DashboardAccount = VisibleAccount;

export interface DashboardUser {
  email: string;
  name: string;
  isOwner: boolean;
  mustChangePassword: boolean;
  accounts: DashboardAccount[];
}

export interface AccountAccess {
  user: DashboardUser;
  account: DashboardAccount;
  role: Role;
  /** `/a/<account id>`: prefix of every page of the account. */
  base: string;
}

export function accountBase(accountId: string): string {
  return `/a/${accountId}`;
}

/** The account a user lands on: the install's default account if they may open it, else their first. */
export function defaultAccountOf(user: DashboardUser): DashboardAccount | undefined {
  return user.accounts.find((a) => a.isDefault) ?? user.accounts[0];
}

export type AccessCheck = { ok: true; access: AccountAccess } | { ok: false; status: 401 | 403 | 404 | 503; error: string };

/** The decision itself, for a resolved user (pure: the tests call it with real users' accounts). */
export function decideAccess(user: DashboardUser | undefined, accountId: unknown, area: Area): AccessCheck {
  if (!user) return { ok: false, status: 401, error: "Sign in first" };
  const account = typeof accountId === "string" ? user.accounts.find((a) => a.accountId === accountId) : undefined;
  if (!account) return { ok: false, status: 404, error: "No such account" };
  if (!canAccess(account.role, area)) return { ok: false, status: 403, error: "Your role may not use this" };
  return { ok: true, access: { user, account, role: account.role, base: accountBase(account.accountId) } };
}

