import type { AppContext } from "../context";
import type { Config } from "../config";
import { applyQueuePolicy } from "../queue/boss";
import { deliverQueue, type RetryPolicy } from "../queue/jobs";
import { completeJobs } from "../queue/job-sql";
import { listenForWork } from "../queue/listen";
import { startJobLoop, type JobLoopOptions } from "../queue/worker-loop";
import { preparedSql } from "../storage/prepared-sql";
import { processDeliverJob } from "./deliver-job";
import type { Transport } from "./transports";

/**
 * The `deliver` workers of a process: the job loop on the runner, the
 * timers that wake it when a deferred retry falls due, and the LISTEN
 * connection that wakes it when work is announced. The transport is built by
 * the caller (lib/workers/start-workers.ts), which owns the sandbox MX.
 */

export interface DeliveryRuntime {
  stop(): Promise<void>;
}

/** Channel that wakes the deliver loops at once (otherwise they poll every second). */
export const DELIVER_CHANNEL = "mailroom_deliver";

/** The queue's expiry decides how soon a dead worker's job goes to another. */
export function deliverPolicy(config: Config): RetryPolicy {
  return { ...deliverQueue.policy, expireInSeconds: config.delivery.jobExpireSeconds };
}

/** Jobs take their queue's policy when enqueued, so every process (the API's too) applies it. */
export async function applyDeliverPolicy(ctx: AppContext): Promise<void> {
  await applyQueuePolicy(ctx.boss, deliverQueue.name, deliverPolicy(ctx.config));
}

export async function startDelivery(
  ctx: AppContext,
  deps: { transport: Transport; secret: string; lease?: JobLoopOptions<unknown>["lease"] },
): Promise<DeliveryRuntime> {
  const timers = new Set<NodeJS.Timeout>();
  const db = preparedSql(ctx.database.pool);
  const loop = startJobLoop(ctx.boss, {
    queue: deliverQueue,
    concurrency: ctx.config.workers.concurrency,
    pollIntervalMs: 1000,
    log: ctx.log,
    db,
    lease: deps.lease,
    // A job completes in the transaction that records its round (record-outcomes.ts, docs/adr/0022).
    completion: "handler",
    handler: async (job, meta) => {
      const { jobCompleted } = await processDeliverJob(
        {
          ctx,
          transport: deps.transport,
          secret: deps.secret,
          onRetryScheduled: (at: number) => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              loop.notify();
            }, Math.max(0, at - Date.now()) + 20);
            timer.unref();
            timers.add(timer);
          },
        },
        job,
        meta.id,
      );
      // Nothing was left to send (its recipients are final already): no round, so complete it here.
      if (!jobCompleted) await completeJobs(db, deliverQueue.name, [meta.id]);
    },
  });
  const listener = await listenForWork(ctx.database.url, DELIVER_CHANNEL, () => loop.notify(), ctx.log, {
    applicationName: "mailroom-delivery-listen",
  });
  return {
    async stop() {
      await listener.stop();
      await loop.stop();
      timers.forEach((t) => clearTimeout(t));
    },
  };
}
