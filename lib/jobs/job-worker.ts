/**
 * What works a job: how a worker process starts working it. `start` runs
 * its job loop (lib/queue/worker-loop.ts) and whatever the handler needs
 * beside it (a LISTEN connection, timers, a pool); `stop` ends them, the
 * loop's jobs in flight included. `Ctx` is the process's context
 * (AppContext, lib/context.ts): lib/jobs sits below it and names it not.
 */
export interface JobWorker<Ctx, Env = object> {
  start(ctx: Ctx, env: JobWorkerEnv & Env): Promise<RunningJob>;
}

export interface RunningJob {
  stop(): Promise<void>;
}

/** What the worker start (lib/workers/start-workers.ts) gives every job. */
export interface JobWorkerEnv {
  /** The process's job lease (lib/queue/job-lease.ts): the loop fetches jobs leased to it. */
  lease: { leaseId(): number | undefined };
}
