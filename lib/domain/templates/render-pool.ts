import { Worker } from "node:worker_threads";

/**
 * Worker threads for large template renders (docs/adr/0121), so that the
 * parse of a 1 MB template and a 10,000-item section never hold the event
 * loop that serves every tenant (the stall budget, docs/adr/0310). Like
 * lib/json-worker.ts: plain JavaScript given as source, started lazily and
 * unref'd while idle. The worker loads `bounded-mustache.cjs`, the same file
 * small renders run on the event loop. A render that outlives its time limit
 * has its worker terminated (a synchronous loop cannot be interrupted
 * otherwise) and fails with RenderTimeout; a new worker takes the next job.
 */

const WORKERS = 2;

const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { renderParts, BudgetExceeded, TemplateSyntaxError } = require(workerData.renderer);
parentPort.on("message", ({ parts, model, budget }) => {
  try {
    parentPort.postMessage({ ok: true, rendered: renderParts(parts, model, budget) });
  } catch (err) {
    if (err instanceof BudgetExceeded) parentPort.postMessage({ ok: false, limit: err.limit });
    else if (err instanceof TemplateSyntaxError) parentPort.postMessage({ ok: false, part: err.part });
    else throw err;
  }
});
`;

export class RenderTimeout extends Error {}

/** What comes back: the rendered parts, a bound that stopped the render, or Mustache's error. */
export type WorkerReply<T> =
  | { ok: true; rendered: T }
  | { ok: false; limit: "output" | "steps" | "depth" }
  | { ok: false; part: "subject" | "html" | "text" };

interface Job {
  message: unknown;
  timeoutMs: number;
  resolve: (reply: unknown) => void;
  reject: (err: unknown) => void;
}

class Slot {
  private worker: Worker | undefined;
  private current: { job: Job; timer: NodeJS.Timeout } | undefined;
  private readonly queue: Job[] = [];

  constructor(private readonly rendererPath: string) {}

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
    const timer = setTimeout(() => this.lose(worker, new RenderTimeout("the template render took too long")), job.timeoutMs);
    this.current = { job, timer };
    try {
      worker.postMessage(job.message);
    } catch (err) {
      this.finish(undefined, err);
    }
  }

  private spawn(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SOURCE, { eval: true, workerData: { renderer: this.rendererPath } });
    worker.unref();
    worker.on("message", (m) => this.finish(m));
    worker.on("messageerror", (err) => this.finish(undefined, err));
    worker.on("error", (err) => this.lose(worker, err));
    worker.on("exit", () => this.lose(worker, new Error("template render worker exited")));
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

let slots: Slot[] | undefined;

/** Runs renderParts(parts, model, budget) of `rendererPath` on a worker; rejects with RenderTimeout after `timeoutMs`. */
export function renderOnWorker<T>(rendererPath: string, message: { parts: unknown; model: unknown; budget: unknown }, timeoutMs: number): Promise<WorkerReply<T>> {
  slots ??= Array.from({ length: WORKERS }, () => new Slot(rendererPath));
  const slot = slots.reduce((a, b) => (b.load < a.load ? b : a));
  return new Promise((resolve, reject) => slot.run({ message, timeoutMs, resolve: resolve as (r: unknown) => void, reject }));
}
