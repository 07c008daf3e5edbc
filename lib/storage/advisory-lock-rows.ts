import { sql } from "drizzle-orm";
import type { Tx } from "./transaction";

/**
 * Takes the advisory lock `lockId`, held until the transaction ends: it
 * serialises one use case across every process on the database (the
 * dashboard keys, the last-admin check). The ids are the use cases' own.
 */
export async function lockForTransaction(tx: Tx, lockId: number): Promise<void> {
  await tx.db.execute(sql`SELECT pg_advisory_xact_lock(${lockId})`);
}
