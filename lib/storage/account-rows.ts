import { eq, sql } from "drizzle-orm";
import { accounts } from "./schema";
import type { Tx } from "./transaction";

/**
 * The SQL text of accounts (lib/domain/accounts.ts and default-account.ts
 * decide what an account is; plain reads and writes use the typed builder there).
 */

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
