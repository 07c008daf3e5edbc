import { Worker } from "node:worker_threads";
import { WorkerPool } from "../../worker-pool";

/**
 * Worker threads for large template renders (docs/adr/0121), so that the
 * parse of a 1 MB template and a 10,000-item section never hold the event
 * loop that serves every tenant (the stall budget, docs/adr/0310). Like
 * lib/json-worker.ts: plain JavaScript given as source, on the same kind of
 * pool (lib/worker-pool.ts: slots started lazily and unref'd while idle).
 * The worker loads `bounded-mustache.cjs`, the same file small renders run
 * on the event loop. A render that outlives its time limit
 * has its worker terminated (a synchronous loop cannot be interrupted
 * otherwise) and fails with RenderTimeout; a new worker takes the next job.
 */

const WORKERS = 2;

/**
 * Below the API's event loop in the scheduler's eyes: on Linux a thread has a
 * nice value of its own (setpriority(2) with pid 0 sets the calling
 * thread's), so on a machine whose cores are all busy the loop that serves
 * every tenant runs first and renders take what is left (docs/adr/0122).
 * Elsewhere the same call would lower the whole process: not made there.
 */
const RENDER_NICE = 10;

const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
if (process.platform === "linux") try { require("node:os").setPriority(${RENDER_NICE}); } catch {}
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

// eslint-disable-next-line no-restricted-syntax -- per process: its threads are the process's CPU (WORKERS however many contexts it holds), and a reply depends only on its message
let pool: WorkerPool | undefined;

/** Runs renderParts(parts, model, budget) of `rendererPath` on a worker; rejects with RenderTimeout after `timeoutMs`. */
export function renderOnWorker<T>(rendererPath: string, message: { parts: unknown; model: unknown; budget: unknown }, timeoutMs: number): Promise<WorkerReply<T>> {
  pool ??= new WorkerPool(WORKERS, () => new Worker(SOURCE, { eval: true, workerData: { renderer: rendererPath } }), "template render worker");
  return pool.submit(message, { timeoutMs, timeoutError: () => new RenderTimeout("the template render took too long") }) as Promise<WorkerReply<T>>;
}
