import type { AppContext } from "../context";
import { applyQueuePolicy, enqueueOnce, scheduleQueue } from "../queue/boss";
import type { JobWorker, JobWorkerEnv } from "../jobs/job-worker";
import { startJobLoop, type JobLoop } from "../queue/worker-loop";
import { openDatabase } from "../storage/database";
import { queueOf, type MaintenanceJob } from "./maintenance-job";
import { retentionPurge } from "./retention-purge";
import { idempotencyKeyPurge } from "./idempotency-keys";
import { signInFailurePurge } from "./sign-in-failures";
import { strandedRecipientSweep } from "./stranded-recipients";
import { webhookRetention } from "./webhook-retention";
import { webhookSweep } from "./webhook-sweep";
import { inboundRetention } from "./inbound-retention";
import { eventPartitions } from "./event-partitions";
import { domainHealthCheck } from "./domain-health";
import { tlsReports } from "./tls-reports";

/** Every maintenance job, each a pg-boss schedule run on the job runner. */
export const MAINTENANCE_JOBS: readonly MaintenanceJob[] = [strandedRecipientSweep, eventPartitions, retentionPurge, signInFailurePurge, idempotencyKeyPurge, webhookRetention, webhookSweep, inboundRetention, domainHealthCheck, tlsReports];

/** How a worker process works the maintenance jobs (their one entry in lib/jobs/registry.ts). */
export const maintenanceWorker: JobWorker<AppContext> = {
  start: (ctx, env) => startMaintenance(ctx, MAINTENANCE_JOBS, { lease: env.lease }),
};

/** The schedule of versions before the job runner (one `maintenance` queue for everything): no longer worked. */
const LEGACY_SCHEDULE = "maintenance";

/** Schedules the maintenance jobs (idempotent: every worker process does it) and runs them here too. */
export async function startMaintenance(
  ctx: AppContext,
  jobs: readonly MaintenanceJob[] = MAINTENANCE_JOBS,
  // How long a tick waits at most for this process to take it (tests shorten it).
  options: { pollIntervalMs?: number } & Partial<JobWorkerEnv> = {},
): Promise<{ stop(): Promise<void> }> {
  const loops: JobLoop[] = [];
  // The jobs' own connections, without the query timeout of the request paths (docs/adr/0514): a purge
  // batch or a partition move on a large table may take minutes, and a job may wait its turn for one.
  const database = openDatabase(ctx.database.url, { max: 4, applicationName: "mailroom-maintenance", connectionTimeoutMillis: 60_000 });
  const jobCtx: AppContext = { ...ctx, database };
  const stop = async () => {
    await Promise.all(loops.splice(0).map((l) => l.stop()));
    await database.close();
  };
  try {
    await ctx.boss.unschedule(LEGACY_SCHEDULE);
    for (const job of jobs) {
      const queue = queueOf(job);
      await applyQueuePolicy(ctx.boss, queue.name, queue.policy);
      await scheduleQueue(ctx.boss, queue, job.cron, {});
      if (job.runAtStart) await enqueueOnce(ctx.boss, queue, {}, { key: job.name, seconds: 30 });
      loops.push(
        startJobLoop(ctx.boss, {
          queue,
          concurrency: 1,
          pollIntervalMs: options.pollIntervalMs ?? 30_000,
          log: ctx.log,
          outage: (err, detail) => ctx.outage.report("jobs", err, detail) !== undefined,
          lease: options.lease,
          handler: async (data) => {
            const report = await job.run(jobCtx, new Date(), data as Record<string, unknown>);
            const did = Object.values(report).some((n) => n > 0);
            ctx.log[did ? "info" : "debug"]({ job: job.name, report }, "maintenance job done");
          },
        }),
      );
    }
    return { stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
