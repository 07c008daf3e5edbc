import type { AppContext } from "../context";
import { notifyQueue } from "../jobs/notify";
import { listenForWork } from "../queue/listen";
import type { JobWorker, JobWorkerEnv } from "../jobs/job-worker";
import { SETTLED, startJobLoop } from "../queue/worker-loop";
import { openDatabase, type Database } from "../storage/database";
import { preparedSql } from "../storage/prepared-sql";
import { NotificationDispatcher, defaultDispatcherOptions, type DispatcherOptions, type DispatcherStats } from "./dispatcher";
import { WAKE_CHANNEL } from "../storage/notification-rows";

/** How a worker process works the `notify` job (lib/jobs/notify.ts); `dispatcher` overrides its options (tests). */
export const notifyWorker: JobWorker<AppContext, { dispatcher?: Partial<DispatcherOptions> }> = {
  start: (ctx, env) => startNotifications(ctx, { workers: true, dispatcher: env.dispatcher, lease: env.lease }),
};

/**
 * Starts the `notify` queue workers when `workers` is set: the dispatcher as
 * the handler of a job loop on the runner, woken by the fan-out's NOTIFY.
 * Without workers, notifications wait in the outbox and their jobs in the
 * queue until some process runs them. (The sweep of overdue notifications
 * and the purge of their history are maintenance jobs, lib/maintenance.)
 */
export async function startNotifications(
  ctx: AppContext,
  options: { workers: boolean; dispatcher?: Partial<DispatcherOptions> } & Partial<JobWorkerEnv>,
): Promise<{ stop(): Promise<void>; stats?: DispatcherStats }> {
  if (!options.workers) return { stop: async () => {} };
  const dispatcherOptions = { ...defaultDispatcherOptions(ctx.config.webhooks.timeoutMs), ...options.dispatcher };
  const database = openAsyncCommitDatabase(ctx.database.url, ctx.config.dbQueryTimeoutMs);
  const dispatcher = new NotificationDispatcher(ctx, database, dispatcherOptions);
  const loop = startJobLoop(ctx.boss, {
    queue: notifyQueue,
    concurrency: dispatcherOptions.maxInFlight,
    // pg-boss sorts the whole due backlog per fetch: larger batches amortise that.
    maxBatch: 200,
    pollIntervalMs: dispatcherOptions.pollIntervalMs,
    log: ctx.log,
    outage: (err, detail) => ctx.outage.report("webhooks", err, detail) !== undefined,
    db: preparedSql(database),
    lease: options.lease,
    // The dispatcher completes or hands back each job with the notification's outcome.
    handler: async (job, meta) => {
      await dispatcher.handle(job, meta);
      return SETTLED;
    },
  });
  const listener = await listenForWork(ctx.database.url, WAKE_CHANNEL, () => loop.notify(), ctx.log, {
    applicationName: "mailroom-webhooks-listen",
  });
  return {
    stats: dispatcher.stats,
    async stop() {
      await listener.stop();
      // Stop fetching first; the dispatcher then settles every job the loop still waits for.
      const loopStopped = loop.stop();
      await dispatcher.stop();
      await loopStopped;
      await database.close().catch(() => {});
    },
  };
}

/**
 * The dispatcher's own connections, with synchronous_commit off: a claim, an
 * attempt record or a hand-back lost in a database crash only means the
 * notification is attempted again (at least once), so these commits need not
 * wait for the WAL flush. The fan-out (the caller's transaction) keeps full
 * durability.
 */
function openAsyncCommitDatabase(url: string, queryTimeoutMillis: number): Database {
  return openDatabase(url, { max: 4, applicationName: "mailroom-webhooks", asynchronousCommit: true, queryTimeoutMillis });
}
