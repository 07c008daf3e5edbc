import type { AppContext } from "../context";

/**
 * What a job's `worker` loader returns: how a worker process starts
 * working it. `start` runs its job loop (lib/queue/worker-loop.ts) and
 * whatever the handler needs beside it (a LISTEN connection, timers, a
 * pool); `stop` ends them, the loop's jobs in flight included.
 */
export interface JobWorker<Env = object> {
  start(ctx: AppContext, env: JobWorkerEnv & Env): Promise<RunningJob>;
}

export interface RunningJob {
  stop(): Promise<void>;
}

/** What the worker start (lib/workers/start-workers.ts) gives every job. */
export interface JobWorkerEnv {
  /** The process's job lease (lib/queue/job-lease.ts): the loop fetches jobs leased to it. */
  lease: { leaseId(): number | undefined };
}
