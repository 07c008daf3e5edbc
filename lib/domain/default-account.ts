import { eq, sql } from "drizzle-orm";
import type { Db } from "../storage/database";
import { accounts } from "../storage/schema";
import { requireAccount, type AccountRow } from "./accounts";

/**
 * Makes `accountId` the default account: the one the dashboard shows and
 * `--account` falls back to. One transaction (the partial unique index
 * allows one default at a time). The dashboard's API key follows on its next
 * lookup (getDashboardApiKey makes one for the new default).
 */
export async function setDefaultAccount(db: Db, accountId: string): Promise<AccountRow> {
  await requireAccount(db, accountId);
  return db.transaction(async (tx) => {
    await tx.update(accounts).set({ isDefault: false, updatedAt: sql`now()` }).where(eq(accounts.isDefault, true));
    const [row] = await tx.update(accounts).set({ isDefault: true, updatedAt: sql`now()` }).where(eq(accounts.id, accountId)).returning();
    return row!;
  });
}
