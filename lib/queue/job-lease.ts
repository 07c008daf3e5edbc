import os from "node:os";
import pg from "pg";
import type { Logger } from "../logger";

/**
 * Job leases (docs/adr/0021): a worker holds the jobs it fetched by being
 * alive, not by a long expiry. Each worker registers a row in
 * `queue_workers` and, on a dedicated connection, holds a session advisory
 * lock on its id and beats (`heartbeat_at`) every 5 s. The jobs it fetches
 * carry its id (job-sql.ts, fetchLeasedJobs). A worker is dead when its lock
 * is free (its process or connection died: PostgreSQL releases the lock at
 * once) or it has not beaten for 30 s (alive but stuck); then any live
 * process returns its active jobs to the queue at once, whatever their
 * expiry. A restart finds every lock of the previous run free, so it
 * reclaims before its loops fetch. A reclaimed job may run twice (a copy
 * sent just before the crash): at-least-once, counted in
 * `queue_reclaims` (mailroom_queue_jobs_reclaimed_total).
 */

export const LEASE_HEARTBEAT_MS = 5_000;
export const LEASE_DEAD_AFTER_MS = 30_000;
/** First key of the two-key advisory lock (an arbitrary constant: "MRW"); the second is the worker id. */
export const LEASE_LOCK_CLASS = 0x4d5257;

export interface JobLeaseKeeper {
  /** The id fetched jobs are leased to; undefined while not registered (no database) or for a keeper that only reclaims. */
  leaseId(): number | undefined;
  /** Runs one reclaim pass now; resolves to the jobs returned to the queue. */
  reclaim(): Promise<number>;
  /** Releases this worker's remaining active jobs (they run again at once, no retry counted), unregisters, closes. */
  stop(): Promise<void>;
}

export interface JobLeaseOptions {
  log: Logger;
  /** Hold a lease (a process that fetches jobs) or only reclaim those of dead workers (an HTTP-only process). */
  register: boolean;
  role: string;
  heartbeatMs?: number;
  deadAfterMs?: number;
  applicationName?: string;
}

const REGISTER = `INSERT INTO queue_workers (pid, host, role) VALUES ($1, $2, $3) RETURNING id`;
const BEAT = `UPDATE queue_workers SET heartbeat_at = now() WHERE id = $1 RETURNING id`;
// Dead: the lock is free, or the last beat is too old. Deleting the row is the claim on its jobs (one reclaimer wins).
const TAKE_DEAD = `
  DELETE FROM queue_workers w
   WHERE w.heartbeat_at < now() - make_interval(secs => $1::float8)
      OR NOT EXISTS (SELECT 1 FROM pg_locks l
                      WHERE l.locktype = 'advisory' AND l.classid = $2::oid AND l.objid = w.id::oid AND l.objsubid = 2 AND l.granted)
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

export async function startJobLeaseKeeper(url: string, options: JobLeaseOptions): Promise<JobLeaseKeeper> {
  const heartbeatMs = options.heartbeatMs ?? LEASE_HEARTBEAT_MS;
  const deadAfterMs = options.deadAfterMs ?? LEASE_DEAD_AFTER_MS;
  const log = options.log;
  let client: pg.Client | undefined;
  let id: number | undefined;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<unknown> = Promise.resolve();

  const connect = async () => {
    const c = new pg.Client({ connectionString: url, application_name: options.applicationName ?? `mailroom-lease-${options.role}` });
    // A lost connection releases the lock: other processes take this worker's jobs. Re-register on the next beat.
    c.on("error", (err) => {
      log.warn({ err, workerId: id }, "job lease connection lost; this worker's jobs go to others");
      if (client === c) {
        client = undefined;
        id = undefined;
      }
    });
    await c.connect();
    if (options.register) {
      await c.query("BEGIN");
      const { rows } = await c.query<{ id: number }>(REGISTER, [process.pid, os.hostname(), options.role]);
      // Locked before the row is visible: a reclaimer never sees this worker without its lock.
      await c.query("SELECT pg_advisory_lock($1, $2)", [LEASE_LOCK_CLASS, rows[0]!.id]);
      await c.query("COMMIT");
      id = rows[0]!.id;
    }
    client = c;
  };

  const reclaimWith = async (c: pg.Client): Promise<number> => {
    await c.query("BEGIN");
    try {
      const dead = await c.query<{ id: number }>(TAKE_DEAD, [deadAfterMs / 1000, LEASE_LOCK_CLASS]);
      let total = 0;
      if (dead.rows.length > 0) {
        const { rows } = await c.query<{ queue: string; jobs: number }>(RETURN_JOBS, [dead.rows.map((r) => r.id)]);
        total = rows.reduce((n, r) => n + r.jobs, 0);
        const detail = { deadWorkers: dead.rows.map((r) => r.id), reclaimed: rows };
        if (total > 0) log.warn(detail, "returned the jobs of dead workers to the queue");
        else log.info(detail, "dead workers unregistered; they held no jobs");
      }
      await c.query("COMMIT");
      return total;
    } catch (err) {
      await c.query("ROLLBACK").catch(() => {});
      throw err;
    }
  };

  const tick = async () => {
    if (!running) return;
    try {
      if (!client) await connect();
      const c = client!;
      if (options.register && id !== undefined) {
        const beat = await c.query(BEAT, [id]);
        if (beat.rowCount === 0) {
          // Declared dead (a stall of over 30 s): its jobs went to others; hold a new lease for what it fetches next.
          log.warn({ workerId: id }, "this worker's lease was taken (it did not beat for too long); registering again");
          await c.end().catch(() => {});
          client = undefined;
          id = undefined;
          await connect();
        }
      }
      await reclaimWith(client!);
    } catch (err) {
      if (running) log.warn({ err }, "job lease heartbeat failed");
    }
  };

  const schedule = () => {
    timer = setTimeout(() => {
      busy = tick().finally(() => running && schedule());
    }, heartbeatMs);
  };

  // At start: register, then reclaim what dead workers held before any loop fetches.
  await connect();
  await reclaimWith(client!);
  schedule();

  return {
    leaseId: () => id,
    async reclaim() {
      await busy;
      if (!client) await connect();
      return reclaimWith(client!);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await busy.catch(() => {});
      const c = client;
      client = undefined;
      if (!c) return;
      try {
        if (id !== undefined) {
          const released = await c.query(RELEASE_OWN, [id]);
          if (released.rowCount) log.info({ workerId: id, jobs: released.rowCount }, "released unfinished jobs to the queue");
          await c.query("DELETE FROM queue_workers WHERE id = $1", [id]);
        }
      } catch (err) {
        log.warn({ err, workerId: id }, "releasing this worker's jobs failed; others reclaim them when its lock is gone");
      } finally {
        id = undefined;
        await c.end().catch(() => {});
      }
    },
  };
}
