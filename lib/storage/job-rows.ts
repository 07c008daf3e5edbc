import { createHash } from "node:crypto";
import type { Queryable } from "./database";

/**
 * A connection pg-boss's statements run on (pg-boss's `Db`: the boss's own
 * pool, a transaction's `tx.sql`, a `preparedSql(...)` adapter).
 */
export interface JobSql {
  executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * The two job transitions pg-boss 10's typings do not offer:
 * - completing several jobs on a given connection (its `complete(name, ids,
 *   data, options)` exists at run time but is typed without the connection);
 * - failing a job for good, without the retries of its policy (a payload that
 *   does not parse will never parse).
 * Same statements and states as pg-boss's own (src/plans.js, completeJobs and
 * failJobs); `pgboss` is the schema startQueue uses.
 */

/**
 * The table of one queue's jobs: pg-boss 10 keeps each queue in its own
 * partition of `pgboss.job`, named `j` + the SHA-224 of the queue's name
 * (src/plans.js, createQueue; test/integration/job-queue-tables.test.ts holds
 * it to that). The hot statements below name it rather than the parent: a
 * custom plan of the parent weighs every queue's table before pruning to
 * one, on every call (measured: 0.36 ms to plan a complete, 0.54 ms a fetch),
 * and the parent's generic plan costs more, so it is never chosen. The name
 * is a literal in them too: a generic plan that knew it only as a parameter
 * scanned the queue's whole table for a complete instead of its key.
 */
export function queueTable(name: string): string {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`not a queue name: ${name}`);
  let table = queueTables.get(name);
  if (!table) {
    table = `pgboss."j${createHash("sha224").update(name).digest("hex")}"`;
    queueTables.set(name, table);
  }
  return table;
}
// A memo of a pure function of the queue's name (a handful of queues), not process state.
// eslint-disable-next-line no-restricted-syntax
const queueTables = new Map<string, string>();

/**
 * `id = ANY($1)`, not pg-boss's `id IN (SELECT UNNEST($1))`: prepared, the
 * latter's generic plan, made while the queue's table had never been
 * analyzed (a new install, a benchmark's first minute), read every row of the
 * queue through a bitmap scan and joined the ids to them (1.38 ms a call at
 * 4,000 jobs, growing with the table); this one is the key's index scan then
 * on PostgreSQL 18, the embedded one (15 makes the bitmap scan of either).
 * Once analyzed, either follows the statistics, which autovacuum renews
 * within about a minute of the table growing.
 */
const COMPLETE = (name: string) => `
  WITH results AS (
    UPDATE ${queueTable(name)} SET completed_on = now(), state = 'completed', output = NULL
     WHERE name = '${name}' AND id = ANY($1::uuid[]) AND state = 'active'
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

export async function completeJobs(db: JobSql, name: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.executeSql(COMPLETE(name), [ids]);
}

/** Fails a job without retry; `reason` is kept as its output ({ message }), as pg-boss keeps a failure's. */
export async function failJobForGood(db: JobSql, name: string, id: string, reason: string): Promise<void> {
  await db.executeSql(FAIL_FOR_GOOD, [name, id, JSON.stringify({ message: reason })]);
}

/**
 * pg-boss's fetch (src/plans.js, fetchNextJob: same locking and singleton
 * gating) that also writes the fetching worker's lease into the job's
 * `output` (which pg-boss reads only once a job is completed or failed, and
 * both overwrite it): a dead worker's jobs are then found by its id
 * (lib/queue/job-lease.ts, job-lease-rows.ts).
 * One difference: due jobs are taken in `start_after` order (longest due
 * first), the order of pg-boss's own partial index (name, start_after) WHERE
 * state < 'active', so a fetch reads only the rows it takes. pg-boss orders
 * by priority, created_on, id, which sorts the whole due backlog on every
 * fetch: 21.6 ms against 0.32 ms per fetch of 64 with 20,000 jobs waiting
 * (EXPLAIN ANALYZE, docs/BENCHMARKS.md). Mailroom sets no priorities.
 * It reads and writes the queue's own table (queueTable).
 */
const FETCH_LEASED = (name: string) => `
  WITH next AS (
    SELECT id, singleton_key, policy
      FROM ${queueTable(name)}
     WHERE name = '${name}' AND state < 'active' AND start_after < now()
     ORDER BY start_after
     LIMIT $1
       FOR UPDATE SKIP LOCKED
  ), grouped AS (
    SELECT n.id, n.policy AS grouped_policy,
           row_number() OVER (PARTITION BY CASE WHEN $1 > 1 AND n.policy IN ('singleton', 'stately') THEN n.singleton_key ELSE n.id::text END) AS row_number
      FROM next n
  )
  UPDATE ${queueTable(name)} j SET
    state = 'active',
    started_on = now(),
    retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END,
    output = jsonb_build_object('lease', $2::int)
  FROM grouped
  WHERE name = '${name}' AND j.id = grouped.id
    AND ((grouped.grouped_policy IN ('singleton', 'stately') AND grouped.row_number = 1)
         OR COALESCE(grouped.grouped_policy, '') NOT IN ('singleton', 'stately'))
  RETURNING j.id, j.data`;

export async function fetchLeasedJobs(db: JobSql, name: string, batchSize: number, leaseId: number): Promise<{ id: string; data: unknown }[]> {
  const { rows } = (await db.executeSql(FETCH_LEASED(name), [batchSize, leaseId])) as { rows: { id: string; data: unknown }[] };
  return rows;
}

/** The queue's depth and oldest waiting job's age (seconds), by queue: /metrics (lib/metrics.ts). */
export async function waitingJobsByQueue(q: Queryable): Promise<{ name: string; depth: number; age: number }[]> {
  const { rows } = await q.query<{ name: string; depth: number; age: number }>(
    `SELECT name, count(*)::int AS depth, coalesce(extract(epoch FROM now() - min(created_on)), 0)::float8 AS age
           FROM pgboss.job WHERE state IN ('created', 'retry') GROUP BY name`,
  );
  return rows;
}

/** Jobs returned to the queue from dead workers (docs/adr/0021), by queue, since the start: /metrics. */
export async function reclaimedJobsByQueue(q: Queryable): Promise<{ queue: string; jobs: number }[]> {
  const { rows } = await q.query<{ queue: string; jobs: number }>(`SELECT queue, sum(jobs)::int AS jobs FROM queue_reclaims GROUP BY queue`);
  return rows;
}

/**
 * The deliver queue's fetch by turns (docs/adr/0325): jobs carry their
 * account in `singleton_key` (deliver jobs use no singleton policy, so the
 * key gates nothing), and each fetch takes the oldest due job of every
 * account with due jobs, then each one's second oldest, and so on: a
 * tenant's 100,000 queued jobs never keep another tenant's one job behind
 * them. `$3`: accounts left out (those holding their share of the loop's
 * slots already); `$4`: where this fetch's turn of accounts starts (after
 * that key; '' from the first). The accounts come from a loose index scan
 * of ACCOUNT_TURNS_INDEX (one probe per account with queued jobs, at most
 * `$1` accounts a fetch: the caller moves the start on), then the
 * batch's share of due jobs of each (a fetch of 64 among 100 accounts reads
 * one job of each: fewer when some have none due, and the loop fetches
 * again while it has room); jobs without a key (queued before this version)
 * take the turns of one account. Locking and the lease as FETCH_LEASED.
 */
const FETCH_BY_TURNS = (name: string) => `
  WITH RECURSIVE accounts AS (
    (SELECT singleton_key AS k, 1 AS depth FROM ${queueTable(name)}
      WHERE name = '${name}' AND state < 'active' AND singleton_key > $4::text ORDER BY singleton_key LIMIT 1)
    UNION ALL
    SELECT (SELECT singleton_key FROM ${queueTable(name)}
             WHERE name = '${name}' AND state < 'active' AND singleton_key > a.k ORDER BY singleton_key LIMIT 1), a.depth + 1
      FROM accounts a WHERE a.k IS NOT NULL AND a.depth < $1
  ), share AS (
    SELECT ceil($1::float8 / greatest(1, count(*)))::int AS n FROM accounts WHERE k IS NOT NULL
  ), turns AS (
    SELECT d.id, d.start_after, row_number() OVER (PARTITION BY a.k ORDER BY d.start_after) AS turn
      FROM accounts a, share
      CROSS JOIN LATERAL (SELECT id, start_after FROM ${queueTable(name)}
                           WHERE name = '${name}' AND state < 'active' AND singleton_key = a.k AND start_after < now()
                           ORDER BY start_after LIMIT share.n) d
     WHERE a.k IS NOT NULL AND a.k <> ALL($3::text[])
    UNION ALL
    SELECT u.id, u.start_after, row_number() OVER (ORDER BY u.start_after) AS turn
      FROM (SELECT id, start_after FROM ${queueTable(name)}
             WHERE name = '${name}' AND state < 'active' AND singleton_key IS NULL AND start_after < now()
             ORDER BY start_after LIMIT $1) u
  ), next AS (
    SELECT j.id FROM ${queueTable(name)} j
     WHERE j.name = '${name}' AND j.state < 'active'
       AND j.id IN (SELECT id FROM turns ORDER BY turn, start_after LIMIT $1)
       FOR UPDATE SKIP LOCKED
  )
  UPDATE ${queueTable(name)} j SET
    state = 'active',
    started_on = now(),
    retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END,
    output = jsonb_build_object('lease', $2::int)
  FROM next
  WHERE name = '${name}' AND j.id = next.id
  RETURNING j.id, j.data, j.singleton_key AS key`;

/** The index FETCH_BY_TURNS walks: queued jobs by account, oldest first (made at queue start: lib/queue/boss.ts). */
const ACCOUNT_TURNS_INDEX = (name: string) =>
  `CREATE INDEX IF NOT EXISTS "${name}_account_turns" ON ${queueTable(name)} (singleton_key, start_after) WHERE state < 'active'`;

export async function ensureAccountTurnsIndex(db: JobSql, name: string): Promise<void> {
  await db.executeSql(ACCOUNT_TURNS_INDEX(name), []);
}

/** FETCH_BY_TURNS: up to `batchSize` jobs in account turns, none of the accounts in `excluded`, from the account after `after`; each with its account (key). */
export async function fetchLeasedJobsByTurns(
  db: JobSql,
  name: string,
  batchSize: number,
  leaseId: number,
  excluded: string[],
  after = "",
): Promise<{ id: string; data: unknown; key: string | null }[]> {
  const { rows } = (await db.executeSql(FETCH_BY_TURNS(name), [batchSize, leaseId, excluded, after])) as { rows: { id: string; data: unknown; key: string | null }[] };
  return rows;
}
