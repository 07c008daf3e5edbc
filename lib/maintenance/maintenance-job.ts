import { z } from "zod";
import type { AppContext } from "../context";
import type { QueueSpec } from "../jobs/job-definition";

/**
 * A maintenance job: a pg-boss schedule (cron, UTC) on its own queue, run on
 * the job runner like any job. pg-boss sends one job per tick whatever the
 * number of processes, and any process's runner takes it.
 */
export interface MaintenanceJob {
  /** Queue and schedule name. */
  name: string;
  cron: string;
  /** Also sent once at each start (deduplicated across processes starting together). */
  runAtStart?: boolean;
  /** What it did, for the log (counts of rows). `data`: the tick's payload (empty when scheduled; a job sent by the CLI may carry more). */
  run(ctx: AppContext, now: Date, data?: Record<string, unknown>): Promise<Record<string, number>>;
}

/** A scheduled tick carries no data (older versions sent `{ task }`, which parses too). */
const tickSchema = z.looseObject({});

export function queueOf(job: MaintenanceJob): QueueSpec<object> {
  // One try more after a minute; a tick that fails twice waits for the next tick.
  return { name: job.name, schema: tickSchema, policy: { retryLimit: 1, retryDelay: 60, retryBackoff: false, expireInSeconds: 3600 } };
}
