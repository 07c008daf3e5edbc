import os from "node:os";
import type { Logger } from "../logger";
import {
  beatLease,
  newLeaseConnection,
  reclaimDeadWorkers,
  registerLeaseWorker,
  releaseLeasedJobs,
  unregisterLeaseWorker,
  type LeaseConnection,
} from "../storage/job-lease-rows";

/**
 * Job leases (docs/adr/0021): a worker holds the jobs it fetched by being
 * alive, not by a long expiry. Each worker registers a row in
 * `queue_workers` and, on a dedicated connection, holds a session advisory
 * lock on its id and beats (`heartbeat_at`) every 5 s. The jobs it fetches
 * carry its id (lib/storage/job-rows.ts, fetchLeasedJobs). A worker is dead when its lock
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

export async function startJobLeaseKeeper(url: string, options: JobLeaseOptions): Promise<JobLeaseKeeper> {
  const heartbeatMs = options.heartbeatMs ?? LEASE_HEARTBEAT_MS;
  const deadAfterMs = options.deadAfterMs ?? LEASE_DEAD_AFTER_MS;
  const log = options.log;
  let client: LeaseConnection | undefined;
  let id: number | undefined;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<unknown> = Promise.resolve();

  const connect = async () => {
    const c = newLeaseConnection(url, options.applicationName ?? `mailroom-lease-${options.role}`);
    // A lost connection releases the lock: other processes take this worker's jobs. Re-register on the next beat.
    c.on("error", (err) => {
      log.warn({ err, workerId: id }, "job lease connection lost; this worker's jobs go to others");
      if (client === c) {
        client = undefined;
        id = undefined;
      }
    });
    await c.connect();
    if (options.register) id = await registerLeaseWorker(c, { pid: process.pid, host: os.hostname(), role: options.role }, LEASE_LOCK_CLASS);
    client = c;
  };

  const reclaimWith = async (c: LeaseConnection): Promise<number> => {
    const detail = await reclaimDeadWorkers(c, deadAfterMs / 1000, LEASE_LOCK_CLASS);
    const total = detail.reclaimed.reduce((n, r) => n + r.jobs, 0);
    if (detail.deadWorkers.length > 0) {
      if (total > 0) log.warn(detail, "returned the jobs of dead workers to the queue");
      else log.info(detail, "dead workers unregistered; they held no jobs");
    }
    return total;
  };

  const tick = async () => {
    if (!running) return;
    try {
      if (!client) await connect();
      const c = client!;
      if (options.register && id !== undefined) {
        if (!(await beatLease(c, id))) {
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
          const released = await releaseLeasedJobs(c, id);
          if (released) log.info({ workerId: id, jobs: released }, "released unfinished jobs to the queue");
          await unregisterLeaseWorker(c, id);
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
