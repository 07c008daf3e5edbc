import { createRequire } from "node:module";
import { MessageChannel, Worker } from "node:worker_threads";
import type { DNSResolver } from "mailauth";
import { WorkerPool } from "../../worker-pool";

/**
 * Worker threads for the sender authentication of large messages
 * (docs/adr/0808), on the pool of lib/worker-pool.ts, like the template
 * renders (lib/domain/templates/render-pool.ts). A timeout that only stops
 * the waiting let 100 s of hashing run on; a worker is terminated instead:
 * by the pool at the deadline, or by itself (process.exit ends only the
 * thread) once its event loop has been active for the CPU budget. The worker
 * asks this thread for every DNS answer over a MessagePort, so that the
 * caller's resolver (the process's answer cache, docs/adr/0806, or a test's)
 * answers for it.
 */

const WORKERS = 2;

const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
const { Readable } = require("node:stream");
const { authenticate } = require(workerData.mailauth);
const SLICE = 64 * 1024;
parentPort.on("message", async ({ raw, options, port, cpuBudgetMs }) => {
  const start = performance.eventLoopUtilization();
  // Checked between the slices the verifier reads: past the budget the thread ends, its work with it.
  const watch = setInterval(() => {
    if (performance.eventLoopUtilization(start).active > cpuBudgetMs) process.exit(1);
  }, 20);
  const asked = new Map();
  let next = 0;
  port.on("message", ({ id, answer, error }) => {
    const waiting = asked.get(id);
    asked.delete(id);
    if (!waiting) return;
    if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }));
    else waiting.resolve(answer);
  });
  const resolver = (name, rrtype) =>
    new Promise((resolve, reject) => {
      const id = next++;
      asked.set(id, { resolve, reject });
      port.postMessage({ id, name, rrtype });
    });
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // A macrotask between slices: stream callbacks alone would carry the whole message past the watch.
  const slices = Readable.from((async function* () {
    for (let i = 0; i < bytes.length; i += SLICE) {
      if (i > 0) await new Promise((turn) => setImmediate(turn));
      yield bytes.subarray(i, i + SLICE);
    }
  })());
  try {
    const r = await authenticate(slices, { ...options, resolver });
    parentPort.postMessage({
      spf: r.spf ? r.spf.status.result : undefined,
      dkim: r.dkim.results.map((d) => ({ result: d.status.result, aligned: Boolean(d.status.aligned) })),
      fromAddresses: r.dkim.headerFrom.length,
      dmarc: r.dmarc ? r.dmarc.status.result : undefined,
    });
  } finally {
    clearInterval(watch);
    port.close();
  }
});
`;

/** What mailauth said, reduced to what the verdicts need (it crosses from the worker as is). */
export interface MailauthVerdicts {
  spf: string | undefined;
  dkim: { result: string; aligned: boolean }[];
  /** Addresses in the From fields, as mailauth read them. */
  fromAddresses: number;
  dmarc: string | undefined;
}

export class AuthenticationTimeout extends Error {}

// eslint-disable-next-line no-restricted-syntax -- per process: its threads are the process's CPU (WORKERS however many contexts it holds), and a reply depends only on its message
let pool: WorkerPool | undefined;

/** mailauth's verdicts of `message` on a worker; rejects when the worker is over its budget, its deadline, or fails. */
export async function authenticateOnWorker(
  message: Buffer,
  options: object,
  resolver: DNSResolver | undefined,
  limits: { cpuBudgetMs: number; deadlineMs: number },
): Promise<MailauthVerdicts> {
  const mailauth = createRequire(import.meta.url).resolve("mailauth");
  pool ??= new WorkerPool(WORKERS, () => new Worker(SOURCE, { eval: true, workerData: { mailauth } }), "sender authentication worker");
  const dns = resolver ?? (await import("node:dns")).promises.resolve;
  const { port1, port2 } = new MessageChannel();
  port1.on("message", ({ id, name, rrtype }: { id: number; name: string; rrtype: string }) => {
    Promise.resolve()
      .then(() => dns(name, rrtype as "TXT"))
      .then(
        (answer) => port1.postMessage({ id, answer }),
        (err: { message?: string; code?: string }) => port1.postMessage({ id, error: { message: String(err?.message), code: err?.code } }),
      );
  });
  // A copy of its own: moved to the worker, and the stored row's bytes stay here.
  const raw = new Uint8Array(message);
  try {
    return (await pool.submit(
      { raw, options, port: port2, cpuBudgetMs: limits.cpuBudgetMs },
      {
        // The pool moves whatever is listed; a MessagePort must be moved, its type asks for ArrayBuffers.
        transfer: [raw.buffer, port2 as unknown as ArrayBuffer],
        timeoutMs: limits.deadlineMs,
        timeoutError: () => new AuthenticationTimeout("sender authentication took too long"),
      },
    )) as MailauthVerdicts;
  } finally {
    port1.close();
  }
}
