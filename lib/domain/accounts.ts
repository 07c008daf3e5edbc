import { randomBytes } from "node:crypto";
import { asc, desc, eq } from "drizzle-orm";
import type { Db } from "../storage/database";
import { accounts } from "../storage/schema";
import { createApiKey } from "./api-keys";
import { effectiveLimits, parsePlan, type Limits, type PlanName } from "./plans";
import { addSenderDomain } from "./sender-domains";
import { DomainError } from "./domain-error";

export { DomainError };

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

export async function createAccount(
  db: Db,
  input: { name: string; plan: string; domain?: string; verified?: boolean; isDefault?: boolean; keyLabel?: string },
): Promise<CreatedAccount> {
  const name = input.name.trim();
  if (!name) throw new DomainError("An account needs a name");
  const plan: PlanName | undefined = parsePlan(input.plan);
  if (!plan) throw new DomainError(`Unknown plan "${input.plan}": use trial, starter, business, growth or unlimited`);
  const [account] = await db
    .insert(accounts)
    .values({ name, plan, webhookSigningKey: generateSigningKey(), isDefault: input.isDefault ?? false })
    .returning();
  const { key, apiKey } = await createApiKey(db, account!.id, input.keyLabel ?? "default");
  const created: CreatedAccount = {
    ...summarizeAccount(account!),
    apiKey,
    apiKeyId: key.id,
    webhookSigningKey: account!.webhookSigningKey,
  };
  if (input.domain) {
    const d = await addSenderDomain(db, account!.id, input.domain, { verified: input.verified });
    created.domain = { name: d.name, status: d.status };
  }
  return created;
}

export async function listAccounts(db: Db): Promise<AccountSummary[]> {
  return (await db.select().from(accounts).orderBy(asc(accounts.createdAt))).map(summarizeAccount);
}

export async function getAccount(db: Db, accountId: string): Promise<AccountRow | undefined> {
  if (!isUuid(accountId)) return undefined;
  const [row] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  return row;
}

export async function requireAccount(db: Db, accountId: string): Promise<AccountRow> {
  const row = await getAccount(db, accountId);
  if (!row) throw new DomainError(`No account with id ${accountId}`);
  return row;
}

/** The account the dashboard shows by default: the one marked default, else the oldest. */
export async function getDefaultAccount(db: Db): Promise<AccountRow | undefined> {
  const [row] = await db.select().from(accounts).orderBy(desc(accounts.isDefault), asc(accounts.createdAt)).limit(1);
  return row;
}

export async function setAccountStatus(db: Db, accountId: string, status: "active" | "suspended"): Promise<AccountRow> {
  await requireAccount(db, accountId);
  const [row] = await db.update(accounts).set({ status, updatedAt: new Date() }).where(eq(accounts.id, accountId)).returning();
  return row!;
}

export async function setAccountLimits(
  db: Db,
  accountId: string,
  limits: { perMinute?: number | null; perHour?: number | null; perDay?: number | null },
): Promise<AccountRow> {
  await requireAccount(db, accountId);
  for (const [k, v] of Object.entries(limits)) {
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 0)) throw new DomainError(`${k} must be a whole number ≥ 0`);
  }
  const [row] = await db
    .update(accounts)
    .set({
      ...(limits.perMinute !== undefined && { limitPerMinute: limits.perMinute }),
      ...(limits.perHour !== undefined && { limitPerHour: limits.perHour }),
      ...(limits.perDay !== undefined && { limitPerDay: limits.perDay }),
      updatedAt: new Date(),
    })
    .where(eq(accounts.id, accountId))
    .returning();
  return row!;
}

/** A new webhook signing key; notifications signed after this use it. */
export async function rotateSigningKey(db: Db, accountId: string): Promise<string> {
  await requireAccount(db, accountId);
  const key = generateSigningKey();
  await db.update(accounts).set({ webhookSigningKey: key, updatedAt: new Date() }).where(eq(accounts.id, accountId));
  return key;
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
