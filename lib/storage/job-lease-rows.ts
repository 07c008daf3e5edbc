import pg from "pg";
import { inTransactionOn } from "./transaction";

/**
 * The statements of the job leases (docs/adr/0021, lib/queue/job-lease.ts).
 * They run on a dedicated connection, not the pool: a worker holds a session
 * advisory lock on its id for as long as it lives, which a pooled
 * transaction cannot do. Its transactions run on that connection through
 * inTransactionOn, as every other (docs/adr/0038).
 */

/** A lease keeper's own connection (not pooled: it holds the session lock). */
export type LeaseConnection = pg.Client;

/** A new, not yet connected, lease connection: the keeper listens for its errors before connecting. */
export function newLeaseConnection(url: string, applicationName: string): LeaseConnection {
  return new pg.Client({ connectionString: url, application_name: applicationName });
}

const REGISTER = `INSERT INTO queue_workers (pid, host, role) VALUES ($1, $2, $3) RETURNING id`;
const BEAT = `UPDATE queue_workers SET heartbeat_at = now() WHERE id = $1 RETURNING id`;
// Dead: the lock is free, or the last beat is too old. Deleting the row is the claim on its jobs (one reclaimer wins).
const TAKE_DEAD = `
  DELETE FROM queue_workers w
   WHERE w.heartbeat_at < now() - make_interval(secs => $1::float8)
      OR NOT EXISTS (SELECT 1 FROM pg_locks l
                      WHERE l.locktype = 'advisory' AND l.classid = $2::oid AND l.objid = w.id::oid AND l.objsubid = 2 AND l.granted
                        -- Advisory locks are per database: another database on the server may hold the same numbers.
                        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
  RETURNING w.id`;
// The job goes back due now; the next fetch counts the retry (started_on is set). One out of retries is failed
// (the stranded-recipient sweep then gives its recipients their final event).
const RETURN_JOBS = `
  WITH returned AS (
    UPDATE pgboss.job j
       SET state = CASE WHEN j.retry_count < j.retry_limit THEN 'retry'::pgboss.job_state ELSE 'failed'::pgboss.job_state END,
           completed_on = CASE WHEN j.retry_count < j.retry_limit THEN NULL ELSE now() END,
           start_after = now(),
           output = jsonb_build_object('message', 'lease lost: worker ' || (j.output->>'lease') || ' died or stopped beating', 'reclaimedFrom', (j.output->>'lease')::int)
     WHERE j.state = 'active' AND j.output ? 'lease' AND (j.output->>'lease')::int = ANY($1::int[])
     RETURNING j.name
  ), counted AS (
    INSERT INTO queue_reclaims (queue, jobs) SELECT name, count(*)::int FROM returned GROUP BY name RETURNING queue, jobs
  )
  SELECT queue, jobs FROM counted`;
// A clean stop: this worker's jobs are due again at once, and no retry is counted (started_on cleared).
const RELEASE_OWN = `
  UPDATE pgboss.job SET state = 'retry', start_after = now(), started_on = NULL, output = NULL
   WHERE state = 'active' AND output ? 'lease' AND (output->>'lease')::int = $1`;

/** Registers a worker and takes its lock (`lockClass`, id); returns its id. */
export async function registerLeaseWorker(c: LeaseConnection, worker: { pid: number; host: string; role: string }, lockClass: number): Promise<number> {
  // A failure rolls back (it used to leave the connection in an aborted transaction for the keeper's next statement).
  return inTransactionOn(c, async () => {
    const { rows } = await c.query<{ id: number }>(REGISTER, [worker.pid, worker.host, worker.role]);
    // Locked before the row is visible: a reclaimer never sees this worker without its lock.
    await c.query("SELECT pg_advisory_lock($1, $2)", [lockClass, rows[0]!.id]);
    return rows[0]!.id;
  });
}

/** A heartbeat; false when the worker's row is gone (it was declared dead and its jobs taken). */
export async function beatLease(c: LeaseConnection, workerId: number): Promise<boolean> {
  const beat = await c.query(BEAT, [workerId]);
  return beat.rowCount !== 0;
}

export interface Reclaimed {
  deadWorkers: number[];
  /** Jobs returned, by queue. */
  reclaimed: { queue: string; jobs: number }[];
}

/** Unregisters the dead workers and returns their active jobs to the queue, in one transaction. */
export async function reclaimDeadWorkers(c: LeaseConnection, deadAfterSeconds: number, lockClass: number): Promise<Reclaimed> {
  return inTransactionOn(c, async () => {
    const dead = await c.query<{ id: number }>(TAKE_DEAD, [deadAfterSeconds, lockClass]);
    let reclaimed: Reclaimed["reclaimed"] = [];
    if (dead.rows.length > 0) {
      const { rows } = await c.query<{ queue: string; jobs: number }>(RETURN_JOBS, [dead.rows.map((r) => r.id)]);
      reclaimed = rows;
    }
    return { deadWorkers: dead.rows.map((r) => r.id), reclaimed };
  });
}

/** A clean stop: the worker's active jobs are due again at once (no retry counted); returns how many. */
export async function releaseLeasedJobs(c: LeaseConnection, workerId: number): Promise<number> {
  const released = await c.query(RELEASE_OWN, [workerId]);
  return released.rowCount ?? 0;
}

export async function unregisterLeaseWorker(c: LeaseConnection, workerId: number): Promise<void> {
  await c.query("DELETE FROM queue_workers WHERE id = $1", [workerId]);
}
