import type { Worker } from "node:worker_threads";

/**
 * A small pool of worker threads, each slot running one job at a time with
 * a queue of its own; a job goes to the least loaded slot. Shared by the
 * JSON worker (lib/json-worker.ts) and the template render workers
 * (lib/domain/templates/render-pool.ts). Workers are started lazily and
 * unref'd while idle, so an idle pool never holds the process open.
 *
 * A worker that dies (an error, an exit, an unreadable reply) fails its
 * current job; the slot starts a new worker for the next. A job may have a
 * time limit: past it the worker is terminated (a synchronous loop cannot
 * be interrupted otherwise) and the job fails with the job's timeout error.
 */

export interface PoolJobOptions {
  /** Moved to the worker rather than copied. */
  transfer?: ArrayBuffer[];
  /** Past this many milliseconds the worker is terminated and the job rejected with `timeoutError()`. */
  timeoutMs?: number;
  timeoutError?: () => Error;
}

interface Job extends PoolJobOptions {
  message: unknown;
  resolve: (reply: unknown) => void;
  reject: (err: unknown) => void;
}

class WorkerSlot {
  private worker: Worker | undefined;
  private current: { job: Job; timer?: NodeJS.Timeout } | undefined;
  private readonly queue: Job[] = [];

  constructor(
    private readonly start: () => Worker,
    private readonly name: string,
  ) {}

  get load(): number {
    return this.queue.length + (this.current ? 1 : 0);
  }

  run(job: Job): void {
    this.queue.push(job);
    this.next();
  }

  private next(): void {
    if (this.current || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    const worker = this.spawn();
    worker.ref();
    const timer =
      job.timeoutMs === undefined
        ? undefined
        : setTimeout(() => this.lose(worker, job.timeoutError?.() ?? new Error(`${this.name} took too long`)), job.timeoutMs);
    this.current = { job, timer };
    try {
      worker.postMessage(job.message, job.transfer);
    } catch (err) {
      this.finish(undefined, err);
    }
  }

  private spawn(): Worker {
    if (this.worker) return this.worker;
    const worker = this.start();
    worker.unref();
    worker.on("message", (m) => this.finish(m));
    // A reply this side cannot deserialise: the job fails (its caller may do the work itself).
    worker.on("messageerror", (err) => this.finish(undefined, err));
    worker.on("error", (err) => this.lose(worker, err));
    worker.on("exit", () => this.lose(worker, new Error(`${this.name} exited`)));
    return (this.worker = worker);
  }

  /** The worker is gone or is being stopped: its job fails, a new worker takes the next. */
  private lose(worker: Worker, err: unknown): void {
    if (this.worker !== worker) return; // an old worker's late event
    this.worker = undefined;
    void worker.terminate();
    this.finish(undefined, err);
  }

  private finish(message: unknown, err?: unknown): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    if (err === undefined) current.job.resolve(message);
    else current.job.reject(err);
    if (this.queue.length === 0) this.worker?.unref();
    this.next();
  }
}

export class WorkerPool {
  private readonly slots: WorkerSlot[];

  /** `start` makes one worker (called again after one is lost); `name` says which in errors. */
  constructor(size: number, start: () => Worker, name: string) {
    this.slots = Array.from({ length: size }, () => new WorkerSlot(start, name));
  }

  /** Posts `message` to a worker of the least loaded slot; resolves with its reply. */
  submit(message: unknown, options: PoolJobOptions = {}): Promise<unknown> {
    const slot = this.slots.reduce((a, b) => (b.load < a.load ? b : a));
    return new Promise((resolve, reject) => slot.run({ message, ...options, resolve, reject }));
  }
}
