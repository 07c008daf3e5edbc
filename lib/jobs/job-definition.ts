import type { z } from "zod";
import type { Config } from "../config";

/**
 * What a job is (docs/adr/0039): one file per job in lib/jobs defines it,
 * and `JOBS` (registry.ts) lists it. Enqueuers import the definition; the
 * code that works the job is the module its `worker` loads, by dynamic
 * import, so that importing a definition loads none of its handler.
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

/** An entry of the registry: a name and the loader of the module that works it (`W`: a JobWorker, lib/jobs/job-worker.ts). */
export interface RegisteredJob<W = unknown> {
  name: string;
  /** Loads what works the job; only the worker start calls it. */
  worker: () => Promise<W>;
}

/** A job with a queue of its own (what enqueue, enqueueMany and the job loop take). */
export interface JobDefinition<T, W = unknown> extends QueueSpec<T>, RegisteredJob<W> {
  /** The policy once the configuration is known (deliver's expiry); applied by every process that starts workers. */
  configuredPolicy?: (config: Config) => RetryPolicy;
}

/** A definition, its payload type inferred from the schema and its worker's type from the loader. */
export function defineJob<T, W>(definition: JobDefinition<T, W>): JobDefinition<T, W> {
  return definition;
}

/** Whether an entry of the registry has a queue of its own (the maintenance entry has one per schedule). */
export function hasQueue<J extends RegisteredJob>(job: J): job is Extract<J, { schema: unknown }> {
  return "schema" in job;
}
