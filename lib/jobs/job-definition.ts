import type { z } from "zod";
import type { Config } from "../config";

/**
 * What a job is (docs/adr/0039, docs/adr/0050): one file per job in lib/jobs
 * defines it as data (name, payload schema, retry policy), and `JOBS`
 * (registry.ts) lists it. Enqueuers import the definition; the code that
 * works the job is its feature's `JobWorker`, which the composition root
 * (lib/workers/start-workers.ts) pairs with it by name: lib/jobs imports
 * nothing that works a job.
 */

export interface RetryPolicy {
  retryLimit: number;
  /** Seconds before the first retry; doubled (with jitter) per retry when `retryBackoff`. */
  retryDelay: number;
  retryBackoff: boolean;
  /** How long a fetched job may stay active before pg-boss takes it for dead (default the queue's). */
  expireInSeconds?: number;
}

/** A queue: its name, the schema of its jobs' payload (checked on enqueue and on fetch) and its retry policy. */
export interface QueueSpec<T> {
  name: string;
  schema: z.ZodType<T>;
  policy: RetryPolicy;
}

/** An entry of the registry: its name, which the worker start looks its worker up by. */
export interface RegisteredJob<N extends string = string> {
  name: N;
}

/** A job with a queue of its own (what enqueue, enqueueMany and the job loop take). */
export interface JobDefinition<T, N extends string = string> extends QueueSpec<T>, RegisteredJob<N> {
  name: N;
  /** The policy once the configuration is known (deliver's expiry); applied by every process that starts workers. */
  configuredPolicy?: (config: Config) => RetryPolicy;
}

/** A definition, its payload type inferred from the schema and its name kept literal (the workers' table is keyed by it). */
export function defineJob<T, const N extends string>(definition: JobDefinition<T, N>): JobDefinition<T, N> {
  return definition;
}

/** Whether an entry of the registry has a queue of its own (the maintenance entry has one per schedule). */
export function hasQueue<J extends RegisteredJob>(job: J): job is Extract<J, { schema: unknown }> {
  return "schema" in job;
}
