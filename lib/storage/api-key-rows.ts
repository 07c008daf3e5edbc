import { and, asc, desc, eq, isNull } from "drizzle-orm";
import type { Queryable } from "./database";
import { accounts, apiKeys, dashboardApiKeys } from "./schema";

/** The reads and writes of API keys (lib/domain/accounts/api-keys.ts decides what a key may do). */

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKeyRow(q: Queryable, values: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [row] = await q.db.insert(apiKeys).values(values).returning();
  return row!;
}

/** The account's keys, newest first, revoked ones included. */
export async function selectApiKeyRows(q: Queryable, accountId: string): Promise<ApiKeyRow[]> {
  return q.db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(desc(apiKeys.createdAt));
}

/** Revokes a live key (of the account, when given); true when one was revoked now. */
export async function revokeApiKeyRow(q: Queryable, keyId: string, accountId?: string): Promise<boolean> {
  const conds = [eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)];
  if (accountId) conds.push(eq(apiKeys.accountId, accountId));
  const rows = await q.db.update(apiKeys).set({ revokedAt: new Date() }).where(and(...conds)).returning({ id: apiKeys.id });
  return rows.length > 0;
}

/** What authentication needs of a key and its account, by the key's hash. */
export async function selectKeyWithAccount(q: Queryable, hash: Buffer) {
  const [row] = await q.db
    .select({
      keyId: apiKeys.id,
      revokedAt: apiKeys.revokedAt,
      scope: apiKeys.scope,
      senderDomains: apiKeys.senderDomains,
      accountId: accounts.id,
      status: accounts.status,
      plan: accounts.plan,
      limitPerMinute: accounts.limitPerMinute,
      limitPerHour: accounts.limitPerHour,
      limitPerDay: accounts.limitPerDay,
      accountLimitPerDay: accounts.accountLimitPerDay,
      trackOpens: accounts.trackOpens,
      trackClicks: accounts.trackClicks,
      sendingPausedAt: accounts.sendingPausedAt,
      sendingPausedReason: accounts.sendingPausedReason,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.keyHash, hash))
    .limit(1);
  return row;
}

export async function writeKeyLastUsed(q: Queryable, keyId: string, at: Date): Promise<void> {
  await q.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, keyId));
}

/** The id of the account's live dashboard key, if it has one. */
export async function selectLiveDashboardKeyId(q: Queryable, accountId: string): Promise<string | undefined> {
  const [row] = await q.db
    .select({ id: apiKeys.id })
    .from(dashboardApiKeys)
    .innerJoin(apiKeys, eq(apiKeys.id, dashboardApiKeys.apiKeyId))
    .where(and(eq(dashboardApiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
  return row?.id;
}

/** The id of the account's oldest live key, if it has one. */
export async function selectOldestLiveKeyId(q: Queryable, accountId: string): Promise<string | undefined> {
  const [row] = await q.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt))
    .limit(1);
  return row?.id;
}

/** True when the key of this hash is a live (not revoked) key of the account. */
export async function isLiveKeyHashOf(q: Queryable, keyHash: Buffer, accountId: string): Promise<boolean> {
  const [row] = await q.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
  return Boolean(row);
}
