import type pg from "pg";
import { deliverQueue } from "../jobs/deliver";

/**
 * How many messages wait for a delivery worker: the entries of the `deliver`
 * jobs that are due and not yet fetched (docs/adr/0322). A deferred message
 * waits for its retry's time (start_after in the future) and is not counted:
 * a remote server that defers is no reason to refuse new mail. The read walks
 * pg-boss's partial index (name, start_after) WHERE state < 'active' in the
 * order the fetch takes jobs, and stops after `bound` jobs: each job holds at
 * least one entry, so the answer is exact up to the bound and at least the
 * bound past it, at a cost that never grows with the backlog.
 */
const WAITING_ENTRIES = `
  SELECT coalesce(sum(CASE WHEN jsonb_typeof(data->'messages') = 'array' THEN jsonb_array_length(data->'messages') ELSE 1 END), 0)::int AS n
    FROM (SELECT data FROM pgboss.job
           WHERE name = $1 AND state < 'active' AND start_after < now()
           ORDER BY start_after
           LIMIT $2) due`;

export async function waitingDeliverEntries(db: Pick<pg.Pool, "query">, bound: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(WAITING_ENTRIES, [deliverQueue.name, bound]);
  return rows[0]!.n;
}
