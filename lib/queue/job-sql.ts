import type { QueueDb } from "./boss";

/**
 * The two job transitions pg-boss 10's typings do not offer:
 * - completing several jobs on a given connection (its `complete(name, ids,
 *   data, options)` exists at run time but is typed without the connection);
 * - failing a job for good, without the retries of its policy (a payload that
 *   does not parse will never parse).
 * Same statements and states as pg-boss's own (src/plans.js, completeJobs and
 * failJobs); `pgboss` is the schema startQueue uses.
 */

const COMPLETE = `
  WITH results AS (
    UPDATE pgboss.job SET completed_on = now(), state = 'completed', output = NULL
     WHERE name = $1 AND id IN (SELECT UNNEST($2::uuid[])) AND state = 'active'
     RETURNING 1
  )
  SELECT count(*)::int AS count FROM results`;

const FAIL_FOR_GOOD = `
  WITH results AS (
    UPDATE pgboss.job SET completed_on = now(), state = 'failed', output = $3::jsonb
     WHERE name = $1 AND id = $2::uuid AND state < 'completed'
     RETURNING 1
  )
  SELECT count(*)::int AS count FROM results`;

export async function completeJobs(db: QueueDb, name: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.executeSql(COMPLETE, [name, ids]);
}

/** Fails a job without retry; `reason` is kept as its output ({ message }), as pg-boss keeps a failure's. */
export async function failJobForGood(db: QueueDb, name: string, id: string, reason: string): Promise<void> {
  await db.executeSql(FAIL_FOR_GOOD, [name, id, JSON.stringify({ message: reason })]);
}
