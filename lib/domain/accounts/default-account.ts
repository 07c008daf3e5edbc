import type { Database } from "../../storage/database";
import { markDefaultAccount } from "../../storage/account-rows";
import { withTransaction } from "../../storage/transaction";
import { requireAccount, type AccountRow } from "./accounts";

/**
 * Makes `accountId` the default account: the one the dashboard shows and
 * `--account` falls back to. One transaction (the partial unique index
 * allows one default at a time). The dashboard's API key follows on its next
 * lookup (getDashboardApiKey makes one for the new default).
 */
export async function setDefaultAccount(database: Database, accountId: string): Promise<AccountRow> {
  await requireAccount(database, accountId);
  return withTransaction(database, async (tx) => (await markDefaultAccount(tx, accountId))!);
}
