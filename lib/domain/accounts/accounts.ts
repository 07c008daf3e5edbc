import { randomBytes } from "node:crypto";
import { insertAccountRow, selectAccountRow, selectAccountRows, selectDefaultAccountRow, updateAccountRow } from "../../storage/account-rows";
import type { Database, Queryable } from "../../storage/database";
import type { accounts } from "../../storage/schema";
import { withTransaction, type Tx } from "../../storage/transaction";
import { createApiKey } from "./api-keys";
import { effectiveLimits, parsePlan, type Limits, type PlanName } from "./plans";
import { addSenderDomain } from "./sender-domains";
import { DomainError } from "../shared/domain-error";

export type AccountRow = typeof accounts.$inferSelect;

export interface AccountSummary {
  accountId: string;
  name: string;
  plan: string;
  status: string;
  isDefault: boolean;
  retentionDays: number;
  limits: Limits;
  createdAt: string;
}

/** Standard Webhooks form (`whsec_` + base64), usable as-is for both signing schemes. */
export function generateSigningKey(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export function summarizeAccount(a: AccountRow): AccountSummary {
  return {
    accountId: a.id,
    name: a.name,
    plan: a.plan,
    status: a.status,
    isDefault: a.isDefault,
    retentionDays: a.retentionDays,
    limits: effectiveLimits(a.plan, a),
    createdAt: a.createdAt.toISOString(),
  };
}

export interface CreatedAccount extends AccountSummary {
  apiKey: string;
  apiKeyId: string;
  webhookSigningKey: string;
  domain?: { name: string; status: string };
}

export interface NewAccount {
  name: string;
  plan: string;
  domain?: string;
  verified?: boolean;
  isDefault?: boolean;
  keyLabel?: string;
}

/** A new account with its first API key (and sender domain), in one transaction: a bad domain leaves no half-made account behind. */
export async function createAccount(database: Database, input: NewAccount): Promise<CreatedAccount> {
  return withTransaction(database, (tx) => createAccountIn(tx, input));
}

/** createAccount as one step of the caller's transaction (the first start's provisioning, lib/domain/staff/bootstrap.ts). */
export async function createAccountIn(tx: Tx, input: NewAccount): Promise<CreatedAccount> {
  const name = input.name.trim();
  if (!name) throw new DomainError("An account needs a name");
  const plan: PlanName | undefined = parsePlan(input.plan);
  if (!plan) throw new DomainError(`Unknown plan "${input.plan}": use trial, starter, business, growth or unlimited`);
  const account = await insertAccountRow(tx, { name, plan, webhookSigningKey: generateSigningKey(), isDefault: input.isDefault ?? false });
  const { key, apiKey } = await createApiKey(tx, account.id, input.keyLabel ?? "default");
  const created: CreatedAccount = {
    ...summarizeAccount(account),
    apiKey,
    apiKeyId: key.id,
    webhookSigningKey: account.webhookSigningKey,
  };
  if (input.domain) {
    const d = await addSenderDomain(tx, account.id, input.domain, { verified: input.verified });
    created.domain = { name: d.name, status: d.status };
  }
  return created;
}

export async function listAccounts(q: Queryable): Promise<AccountSummary[]> {
  return (await selectAccountRows(q)).map(summarizeAccount);
}

export async function getAccount(q: Queryable, accountId: string): Promise<AccountRow | undefined> {
  if (!isUuid(accountId)) return undefined;
  return selectAccountRow(q, accountId);
}

export async function requireAccount(q: Queryable, accountId: string): Promise<AccountRow> {
  const row = await getAccount(q, accountId);
  if (!row) throw new DomainError(`No account with id ${accountId}`);
  return row;
}

/** The account the dashboard shows by default: the one marked default, else the oldest. */
export async function getDefaultAccount(q: Queryable): Promise<AccountRow | undefined> {
  return selectDefaultAccountRow(q);
}

export async function setAccountStatus(q: Queryable, accountId: string, status: "active" | "suspended"): Promise<AccountRow> {
  await requireAccount(q, accountId);
  return (await updateAccountRow(q, accountId, { status }))!;
}

export async function setAccountLimits(
  q: Queryable,
  accountId: string,
  limits: { perMinute?: number | null; perHour?: number | null; perDay?: number | null },
): Promise<AccountRow> {
  await requireAccount(q, accountId);
  for (const [k, v] of Object.entries(limits)) {
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 0)) throw new DomainError(`${k} must be a whole number ≥ 0`);
  }
  const set = {
    ...(limits.perMinute !== undefined && { limitPerMinute: limits.perMinute }),
    ...(limits.perHour !== undefined && { limitPerHour: limits.perHour }),
    ...(limits.perDay !== undefined && { limitPerDay: limits.perDay }),
  };
  return (await updateAccountRow(q, accountId, set))!;
}

/**
 * The account's own daily ceiling, shared by all its keys (docs/adr/0132):
 * a whole number, 0 for none, or null for the instance's
 * MAILROOM_ACCOUNT_DAILY_LIMIT. Running processes see it within the 5 s of
 * their key cache.
 */
export async function setAccountDailyCeiling(q: Queryable, accountId: string, perDay: number | null): Promise<AccountRow> {
  await requireAccount(q, accountId);
  if (perDay !== null && (!Number.isInteger(perDay) || perDay < 0)) throw new DomainError("The account's daily ceiling must be a whole number ≥ 0");
  return (await updateAccountRow(q, accountId, { accountLimitPerDay: perDay }))!;
}

/** A new webhook signing key; notifications signed after this use it. */
export async function rotateSigningKey(q: Queryable, accountId: string): Promise<string> {
  await requireAccount(q, accountId);
  const key = generateSigningKey();
  await updateAccountRow(q, accountId, { webhookSigningKey: key });
  return key;
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
