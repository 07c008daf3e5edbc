import type { AppContext } from "../context";
import { deliverQueue } from "../jobs/deliver";
import type { JobWorker, JobWorkerEnv } from "../jobs/job-worker";
import { listenForWork } from "../queue/listen";
import { SETTLED, startJobLoop } from "../queue/worker-loop";
import { DELIVER_CHANNEL } from "../storage/delivery-rows";
import { preparedSql } from "../storage/prepared-sql";
import { processDeliverJob, type DeliveryDeps } from "./deliver-job";
import { createMessageLoader } from "./load-messages";
import { createRoundWriter } from "./record-outcomes";
import { createMessageFactsWriter } from "../domain/tracking/tracked-links";
import { startScheduledRelease } from "./scheduled-release";
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


/** What the worker start gives the deliver job besides the lease: its transport and the tracking secret. */
export interface DeliveryEnv {
  transport: Transport;
  secret: string;
}

/** How a worker process works the `deliver` job (lib/jobs/deliver.ts). */
export const deliverWorker: JobWorker<AppContext, DeliveryEnv> = { start: startDelivery };

export async function startDelivery(ctx: AppContext, options: DeliveryEnv & Partial<JobWorkerEnv>): Promise<DeliveryRuntime> {
  const timers = new Set<NodeJS.Timeout>();
  const db = preparedSql(ctx.database);
  const delivery: DeliveryDeps = {
    ctx,
    transport: options.transport,
    secret: options.secret,
    // Shared by the jobs of this process's loop (a process starts its deliver worker once).
    loader: createMessageLoader(ctx.database),
    messageFacts: createMessageFactsWriter(ctx.database),
    roundWriter: createRoundWriter(ctx.database, ctx.boss, (accountId) => ctx.guardrails.note(accountId)),
    onRetryScheduled: (at: number) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        loop.notify();
      }, Math.max(0, at - Date.now()) + 20);
      timer.unref();
      timers.add(timer);
    },
  };
  const loop = startJobLoop(ctx.boss, {
    queue: deliverQueue,
    concurrency: ctx.config.workers.concurrency,
    pollIntervalMs: 1000,
    log: ctx.log,
    outage: (err, detail) => ctx.outage.report("delivery", err, detail) !== undefined,
    db,
    lease: options.lease,
    // Jobs whose copies wait on peers that do not answer, or behind them, leave room for as many more (docs/adr/0321).
    extraSlots: () => options.transport.heldByStalls(),
    // Accounts take turns (docs/adr/0325): one account's jobs hold at most three quarters of the slots,
    // not counting those whose transactions stall (as extraSlots does for the loop).
    turns: { maxPerKey: Math.max(1, Math.floor((ctx.config.workers.concurrency * 3) / 4)), extraFor: (account) => options.transport.heldByStalls(account) },
    handler: async (job, meta) => {
      const [only, ...more] = job.messages;
      if (more.length === 0) {
        // One message: the job completes in the transaction that records its round (docs/adr/0022);
        // one with nothing left to send (its recipients are final already) is completed by the loop.
        const { jobCompleted } = await processDeliverJob(delivery, only!, meta.id);
        return jobCompleted ? SETTLED : undefined;
      }
      // Several messages (docs/adr/0024): delivered at the same time, each recording its own round;
      // the loop completes the job once every one has. A job that throws is retried whole, and a
      // retry skips the recipients already final. All are awaited before that, so a retry never
      // runs beside a message of the same job still being sent.
      const settled = await Promise.allSettled(job.messages.map((entry) => processDeliverJob(delivery, entry)));
      const failed = settled.find((s) => s.status === "rejected");
      if (failed) throw failed.reason;
    },
  });
  const listener = await listenForWork(ctx.database.url, DELIVER_CHANNEL, () => loop.notify(), ctx.log, {
    applicationName: "mailroom-delivery-listen",
  });
  // Scheduled sends are released into this queue by every delivering process (docs/adr/0125).
  const release = await startScheduledRelease(ctx);
  return {
    async stop() {
      await release.stop();
      await listener.stop();
      await loop.stop();
      timers.forEach((t) => clearTimeout(t));
    },
  };
}
