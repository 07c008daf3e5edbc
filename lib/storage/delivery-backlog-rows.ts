import type { Queryable } from "./database";

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
const dueJobs = (column: string) => `
  SELECT ${column} FROM pgboss.job
   WHERE name = $1 AND state < 'active' AND start_after < now()
   ORDER BY start_after
   LIMIT $2`;

const WAITING_ENTRIES = `
  SELECT coalesce(sum(CASE WHEN jsonb_typeof(data->'messages') = 'array' THEN jsonb_array_length(data->'messages') ELSE 1 END), 0)::int AS n
    FROM (${dueJobs("data")}) due`;

export async function waitingDeliverEntries(q: Queryable, deliverQueueName: string, bound: number): Promise<number> {
  const { rows } = await q.query<{ n: number }>(WAITING_ENTRIES, [deliverQueueName, bound]);
  return rows[0]!.n;
}

/**
 * How many jobs of a queue are not yet fetched, due or not, counted up to
 * `bound` by a walk of the same partial index: the received messages waiting
 * for their post, first or next (`inbound-post`, one job each; docs/adr/0049).
 * Unlike delivery's, a post waiting for its retry counts (docs/adr/0807): its
 * message is stored, and every retry parses it again.
 */
const WAITING_JOBS = `SELECT count(*)::int AS n FROM (
  SELECT 1 FROM pgboss.job WHERE name = $1 AND state < 'active' ORDER BY start_after LIMIT $2) waiting`;

export async function waitingJobs(q: Queryable, queueName: string, bound: number): Promise<number> {
  const { rows } = await q.query<{ n: number }>(WAITING_JOBS, [queueName, bound]);
  return rows[0]!.n;
}
