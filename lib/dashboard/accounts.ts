import "server-only";
import { notFound } from "next/navigation";
import { createAccount, listAccounts, setAccountLimits, setAccountStatus, type AccountSummary } from "../domain/accounts/accounts";
import { PLANS, type PlanName } from "../domain/accounts/plans";
import { endStaffSessions } from "../domain/staff/staff-users";
import { getServerContext } from "../runtime";
import { requireDashboardUser, type DashboardUser } from "./access";

/**
 * The Accounts page (owners only, ADR 0510): every account of the install,
 * create one, suspend or activate one, override its daily limit. Not an owner: the page does not exist (404).
 */

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

/** The plan the New account form starts on. */
export const NEW_ACCOUNT_PLAN: PlanName = "starter";

export async function requireOwner(): Promise<DashboardUser> {
  const user = await requireDashboardUser("/accounts");
  if (!user.isOwner) notFound();
  return user;
}

export async function listAllAccounts(owner: DashboardUser): Promise<AccountSummary[]> {
  if (!owner.isOwner) notFound();
  return listAccounts(getServerContext().database);
}

export interface CreatedAccountView {
  accountId: string;
  name: string;
  apiKey: string;
}

/** A new account (its first API key shown once), with an optional sender domain. */
export async function createAccountAsOwner(
  owner: DashboardUser,
  input: { name: string; plan: string; domain?: string },
): Promise<CreatedAccountView> {
  if (!owner.isOwner) notFound();
  // One transaction (createAccount's own): a bad domain leaves no half-made account behind.
  const created = await createAccount(getServerContext().database, { name: input.name, plan: input.plan, domain: input.domain || undefined });
  return { accountId: created.accountId, name: created.name, apiKey: created.apiKey };
}

export async function setStatusAsOwner(owner: DashboardUser, accountId: string, status: "active" | "suspended"): Promise<null> {
  if (!owner.isOwner) notFound();
  const ctx = getServerContext();
  await setAccountStatus(ctx.database, accountId, status);
  // Takes effect at once in this process; other processes see it within their cache's few seconds.
  ctx.apiKeyAuth.results.clear();
  return null;
}

/** The daily sending limit of an account: a whole number, or null for the plan's own. */
export async function setDailyLimitAsOwner(owner: DashboardUser, accountId: string, perDay: number | null): Promise<null> {
  if (!owner.isOwner) notFound();
  const ctx = getServerContext();
  await setAccountLimits(ctx.database, accountId, { perDay });
  ctx.apiKeyAuth.results.clear();
  return null;
}

/** An owner ends every dashboard session of a staff user (docs/adr/0507): they sign in again. */
export async function endSessionsAsOwner(owner: DashboardUser, email: string): Promise<{ email: string }> {
  if (!owner.isOwner) notFound();
  const user = await endStaffSessions(getServerContext().database, email);
  return { email: user.email };
}
