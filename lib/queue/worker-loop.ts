import type { Logger } from "../logger";
import { createGroupCommit } from "../storage/group-commit";
import type { PgBoss } from "./boss";

/**
 * A job loop with real concurrency: keeps up to `concurrency` jobs of one
 * queue in flight, fetching more as soon as a slot frees (pg-boss's own
 * `work` completes a batch only when its slowest job is done). Jobs are
 * completed or failed one by one, completions group-committed. `notify()`
 * fetches at once (new work announced); otherwise it polls.
 */

export interface JobLoop {
  notify(): void;
  stop(): Promise<void>;
  inFlight(): number;
}

export interface JobLoopOptions<T> {
  queue: string;
  concurrency: number;
  pollIntervalMs: number;
  handler: (data: T, job: { id: string }) => Promise<void>;
  log: Logger;
  /** Where fetch/complete/fail run (default pg-boss's own pool); a prepared-statement adapter saves their planning. */
  db?: { executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };
}

type CompleteWithDb = (name: string, ids: string[], data: null, options: { db?: JobLoopOptions<unknown>["db"] }) => Promise<unknown>;

export function startJobLoop<T>(boss: PgBoss, options: JobLoopOptions<T>): JobLoop {
  let running = true;
  let inFlight = 0;
  let wake: (() => void) | undefined;
  let wakeRequested = false;
  // While jobs run, fetch only once this many slots are free: fewer, larger fetches (an idle loop fetches at once).
  const fetchAtFree = Math.max(1, Math.floor(options.concurrency / 4));
  const idle: (() => void)[] = [];

  const signal = () => {
    wakeRequested = true;
    wake?.();
  };

  // Completions are group-committed: one statement for all jobs finished while the previous one ran.
  const complete = createGroupCommit(
    async (ids: string[]) => {
      await (boss.complete as unknown as CompleteWithDb).call(boss, options.queue, ids, null, { db: options.db });
      return ids.map(() => undefined);
    },
    { maxBatch: 500, maxInFlight: 1 },
  );
  const completing = new Set<Promise<unknown>>();

  const run = async (job: { id: string; data: T }) => {
    try {
      await options.handler(job.data, job);
      const done = complete(job.id).catch((err: Error) => options.log.warn({ err, queue: options.queue }, "completing jobs failed"));
      completing.add(done);
      void done.finally(() => completing.delete(done));
    } catch (err) {
      options.log.warn({ err, queue: options.queue, jobId: job.id }, "job failed; pg-boss will retry it");
      await boss.fail(options.queue, job.id, { message: (err as Error).message }, { db: options.db }).catch(() => {});
    } finally {
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
      const free = options.concurrency - inFlight;
      let fetched = 0;
      if (free > 0 && (inFlight === 0 || free >= fetchAtFree)) {
        try {
          const jobs = (await boss.fetch<T>(options.queue, { batchSize: free, db: options.db })) ?? [];
          fetched = jobs.length;
          for (const job of jobs) {
            inFlight++;
            void run(job as { id: string; data: T });
          }
        } catch (err) {
          if (running) options.log.warn({ err, queue: options.queue }, "fetching jobs failed");
        }
      }
      if (!running) break;
      // More may be waiting: fetch again at once while there is room.
      if (fetched > 0 && fetched === free) continue;
      if (fetched > 0 && inFlight < options.concurrency) continue;
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
