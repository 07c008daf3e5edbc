import type { Logger } from "../logger";
import { createGroupCommit } from "../storage/group-commit";
import type { PgBoss, QueueDb } from "./boss";
import { completeJobs, failJobForGood, fetchLeasedJobs, fetchLeasedJobsByTurns } from "../storage/job-rows";
import type { QueueSpec } from "../jobs/job-definition";
import { parsePayload } from "./payload";

/**
 * The job runner's loop, the one place that fetches, completes and fails
 * jobs: keeps up to `concurrency` jobs of one queue in flight (plus any
 * `extraSlots`), fetching more
 * as soon as a slot frees (pg-boss's own `work` completes a batch only when
 * its slowest job is done). Each payload is parsed with its queue's schema;
 * one that does not parse is failed for good with the reason, its handler
 * never called. A handler that throws fails its job (pg-boss retries it per
 * the queue's policy); one that resolves completes it, completions
 * group-committed. `notify()` fetches at once (new work announced);
 * otherwise it polls.
 */

/** What a handler returns when it has completed or handed back its job itself. */
export const SETTLED = "settled";

export interface JobLoop {
  notify(): void;
  stop(): Promise<void>;
  inFlight(): number;
}

export interface JobLoopOptions<T> {
  queue: QueueSpec<T>;
  concurrency: number;
  pollIntervalMs: number;
  /** Largest fetch (pg-boss sorts the due backlog per fetch: larger batches amortise that). Default `concurrency`. */
  maxBatch?: number;
  /**
   * Resolves with nothing: the loop completes the job (group-committed).
   * Resolves with "settled": the handler completed (or handed back) its job
   * itself, in the transaction that recorded its outcome; the loop only frees
   * the slot.
   */
  handler: (data: T, job: { id: string }) => Promise<void | typeof SETTLED>;
  log: Logger;
  /**
   * Takes a failure that may be a database outage: true when it was one and
   * has been logged by the process's outage log (once per outage at error,
   * docs/adr/0008); the loop then logs nothing itself.
   */
  outage?: (err: unknown, detail: Record<string, unknown>) => boolean;
  /** Where fetch/complete/fail run (default pg-boss's own pool); a prepared-statement adapter saves their planning. */
  db?: QueueDb;
  /**
   * The process's job lease (lib/queue/job-lease.ts): fetched jobs are leased
   * to its id, so they go back to the queue as soon as this process dies.
   * Without one, pg-boss's own fetch (a dead process's jobs wait for their expiry).
   */
  lease?: { leaseId(): number | undefined };
  /**
   * Jobs the loop may run beyond `concurrency` (at most `concurrency` more):
   * delivery counts the transactions that wait on peers that do not answer
   * (docs/adr/0321), so that jobs stuck at a tarpit do not keep every other
   * job from being fetched. Read before each fetch.
   */
  extraSlots?: () => number;
  /**
   * Jobs fetched in turns of their key (the deliver queue's account, docs/adr/0325): the oldest job of each
   * key, then the next of each, and no key holds more than `maxPerKey` of the loop's slots, so one tenant's
   * backlog never keeps another's mail from being fetched. Needs a lease. `extraFor`: jobs of the key that
   * wait on peers that do not answer, which do not count against its cap (as `extraSlots` for the loop), so
   * that a tenant's mail to a tarpit never holds its other mail behind it.
   */
  turns?: { maxPerKey: number; extraFor?: (key: string) => number };
}

/** The keys whose jobs in flight, less those held by stalls (`extraFor`), reach the cap: the next fetch skips them. */
export function keysAtCap(inFlight: ReadonlyMap<string, number>, maxPerKey: number, extraFor?: (key: string) => number): string[] {
  return [...inFlight].filter(([k, n]) => n - Math.min(n, Math.max(0, Math.floor(extraFor?.(k) ?? 0))) >= maxPerKey).map(([k]) => k);
}

/** The slice of pg-boss the loop uses (a fake in its unit tests). */
export interface JobSource {
  fetch(name: string, options: PgBoss.FetchOptions): Promise<{ id: string; data: unknown }[]>;
  fail(name: string, id: string, data: object, options: PgBoss.ConnectionOptions): Promise<unknown>;
  getDb(): QueueDb;
}

export function startJobLoop<T>(boss: JobSource, options: JobLoopOptions<T>): JobLoop {
  const name = options.queue.name;
  const db = options.db ?? boss.getDb();
  const maxBatch = options.maxBatch ?? options.concurrency;
  let running = true;
  let inFlight = 0;
  let wake: (() => void) | undefined;
  let wakeRequested = false;
  // While jobs run, fetch only once this many slots are free: fewer, larger fetches (an idle loop fetches at once).
  const fetchAtFree = Math.max(1, Math.min(maxBatch, Math.floor(options.concurrency / 4)));
  const idle: (() => void)[] = [];
  const limit = () => options.concurrency + Math.min(options.concurrency, Math.max(0, Math.floor(options.extraSlots?.() ?? 0)));

  // Jobs in flight per key, and where the next fetch's turn of keys starts (turns only).
  const byKey = new Map<string, number>();
  let turnsAfter = "";
  const keyOf = new Map<string, string>();
  const fetchByTurns = async (batchSize: number, leaseId: number) => {
    const full = keysAtCap(byKey, options.turns!.maxPerKey, options.turns!.extraFor);
    const jobs = await fetchLeasedJobsByTurns(db, name, batchSize, leaseId, full, turnsAfter);
    const keys = new Set(jobs.flatMap((j) => (j.key === null ? [] : [j.key])));
    // As many keys as the batch: there may be more after the last; else the next turn starts from the first.
    turnsAfter = keys.size >= batchSize ? [...keys].sort().pop()! : "";
    for (const j of jobs) {
      if (j.key === null) continue;
      keyOf.set(j.id, j.key);
      byKey.set(j.key, (byKey.get(j.key) ?? 0) + 1);
    }
    return jobs;
  };
  const forget = (id: string) => {
    const key = keyOf.get(id);
    if (key === undefined) return;
    keyOf.delete(id);
    const n = (byKey.get(key) ?? 1) - 1;
    if (n > 0) byKey.set(key, n);
    else byKey.delete(key);
  };

  const fetchJobs = async (batchSize: number) => {
    if (!options.lease) return boss.fetch(name, { batchSize, db });
    const leaseId = options.lease.leaseId();
    // No lease (its connection is being re-established): fetch nothing rather than jobs nobody would reclaim.
    if (leaseId === undefined) return [];
    if (options.turns) return fetchByTurns(batchSize, leaseId);
    return fetchLeasedJobs(db, name, batchSize, leaseId);
  };

  const signal = () => {
    wakeRequested = true;
    wake?.();
  };

  // Completions are group-committed: one statement for all jobs finished while the previous one ran.
  const complete = createGroupCommit(
    async (ids: string[]) => {
      await completeJobs(db, name, ids);
      return ids.map(() => undefined);
    },
    { maxBatch: 500, maxInFlight: 1 },
  );
  const completing = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    completing.add(p);
    void p.finally(() => completing.delete(p));
  };

  const logFailure = (err: unknown, detail: Record<string, unknown>, message: string) => {
    if (!options.outage?.(err, detail)) options.log.warn({ err, ...detail }, message);
  };

  const run = async (job: { id: string; data: unknown }) => {
    try {
      const payload = parsePayload(options.queue, job.data);
      if (!payload.ok) {
        options.log.error({ queue: name, jobId: job.id, reason: payload.reason }, "job payload refused; failed without retry");
        track(failJobForGood(db, name, job.id, payload.reason).catch((err: Error) => logFailure(err, { queue: name }, "failing a job failed")));
        return;
      }
      if ((await options.handler(payload.data, job)) !== SETTLED) {
        track(complete(job.id).catch((err: Error) => logFailure(err, { queue: name }, "completing jobs failed")));
      }
    } catch (err) {
      logFailure(err, { queue: name, jobId: job.id }, "job failed; pg-boss will retry it");
      const message = err instanceof Error ? err.message : String(err);
      await boss.fail(name, job.id, { message }, { db }).catch(() => {});
    } finally {
      forget(job.id);
      inFlight--;
      if (inFlight === 0) idle.splice(0).forEach((f) => f());
      signal();
    }
  };

  const loop = async () => {
    while (running) {
      wakeRequested = false;
      // Let the other jobs finishing in this tick free their slots too: one fetch for all of them.
      if (inFlight > 0) await new Promise((r) => setImmediate(r));
      const free = Math.min(limit() - inFlight, maxBatch);
      let fetched = 0;
      if (free > 0 && (inFlight === 0 || free >= fetchAtFree)) {
        try {
          const jobs = await fetchJobs(free);
          fetched = jobs.length;
          for (const job of jobs) {
            inFlight++;
            void run(job);
          }
        } catch (err) {
          if (running) logFailure(err, { queue: name }, "fetching jobs failed");
        }
      }
      if (!running) break;
      // More may be waiting: fetch again at once while there is room.
      if (fetched > 0 && fetched === free) continue;
      if (fetched > 0 && inFlight < limit()) continue;
      if (wakeRequested) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };
  const done = loop();

  return {
    notify: signal,
    inFlight: () => inFlight,
    async stop() {
      running = false;
      wake?.();
      await done;
      if (inFlight > 0) await Promise.race([new Promise<void>((r) => idle.push(r)), new Promise((r) => setTimeout(r, 10_000))]);
      await Promise.all(completing);
    },
  };
}
