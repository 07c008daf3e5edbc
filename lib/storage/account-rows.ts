import { asc, desc, eq, sql } from "drizzle-orm";
import type { Queryable } from "./database";
import { accounts } from "./schema";
import type { Tx } from "./transaction";

/**
 * The reads and writes of accounts (lib/domain/accounts/accounts.ts and
 * default-account.ts decide what an account is).
 */

export type AccountRow = typeof accounts.$inferSelect;
export type NewAccountRow = typeof accounts.$inferInsert;

/** A condition: the account (joined in the query) is not deleted. */
export const accountNotDeleted = sql`${accounts.status} <> 'deleted'`;

/**
 * Makes `accountId` the one default account, in the caller's transaction:
 * the old one is cleared first (the partial unique index allows one default
 * at a time). Undefined when there is no such account.
 */
export async function markDefaultAccount(tx: Tx, accountId: string): Promise<typeof accounts.$inferSelect | undefined> {
  await tx.db.update(accounts).set({ isDefault: false, updatedAt: sql`now()` }).where(eq(accounts.isDefault, true));
  const [row] = await tx.db.update(accounts).set({ isDefault: true, updatedAt: sql`now()` }).where(eq(accounts.id, accountId)).returning();
  return row;
}

export async function insertAccountRow(q: Queryable, values: NewAccountRow): Promise<AccountRow> {
  const [row] = await q.db.insert(accounts).values(values).returning();
  return row!;
}

/** Every account, oldest first. */
export async function selectAccountRows(q: Queryable): Promise<AccountRow[]> {
  return q.db.select().from(accounts).orderBy(asc(accounts.createdAt));
}

/** `accountId` must be a UUID (the column's type). */
export async function selectAccountRow(q: Queryable, accountId: string): Promise<AccountRow | undefined> {
  const [row] = await q.db.select().from(accounts).where(eq(accounts.id, accountId));
  return row;
}

/** The account marked default, else the oldest. */
export async function selectDefaultAccountRow(q: Queryable): Promise<AccountRow | undefined> {
  const [row] = await q.db.select().from(accounts).orderBy(desc(accounts.isDefault), asc(accounts.createdAt)).limit(1);
  return row;
}

/** Whether an account is marked default. */
export async function hasDefaultAccount(q: Queryable): Promise<boolean> {
  const [row] = await q.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.isDefault, true));
  return row !== undefined;
}

/** Sets these columns of the account (and updated_at); undefined when there is no such account. */
export async function updateAccountRow(q: Queryable, accountId: string, set: Partial<Omit<NewAccountRow, "id" | "updatedAt">>): Promise<AccountRow | undefined> {
  const [row] = await q.db
    .update(accounts)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(accounts.id, accountId))
    .returning();
  return row;
}

/** The account's name, or undefined when there is no such account (`accountId` a UUID). */
export async function selectAccountName(q: Queryable, accountId: string): Promise<string | undefined> {
  const [row] = await q.db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, accountId));
  return row?.name;
}

/** The account's current webhook signing key, or undefined when there is no such account. */
export async function selectWebhookSigningKey(q: Queryable, accountId: string): Promise<string | undefined> {
  const [row] = await q.db.select({ key: accounts.webhookSigningKey }).from(accounts).where(eq(accounts.id, accountId));
  return row?.key;
}

/** Locks the account's row until the caller's transaction ends (a count of its rows elsewhere then holds). */
export async function lockAccountRow(tx: Tx, accountId: string): Promise<void> {
  await tx.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
}
