import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { WorkerPool } from "./worker-pool";

/** A worker that answers `n * 2`, loops forever on "spin", and exits on "die". */
const SOURCE = `
const { parentPort, threadId } = require("node:worker_threads");
parentPort.on("message", (m) => {
  if (m === "spin") for (;;);
  if (m === "die") process.exit(3);
  parentPort.postMessage({ doubled: m * 2, threadId });
});
`;
const start = () => new Worker(SOURCE, { eval: true });

class Slow extends Error {}

describe("WorkerPool: the worker slots of the JSON and template render workers", () => {
  it("answers each job, in order per slot, spread over the slots", async () => {
    const pool = new WorkerPool(2, start, "test worker");
    const replies = (await Promise.all([1, 2, 3, 4].map((n) => pool.submit(n)))) as { doubled: number; threadId: number }[];
    expect(replies.map((r) => r.doubled)).toEqual([2, 4, 6, 8]);
    expect(new Set(replies.map((r) => r.threadId)).size).toBe(2);
  });

  it("past its time limit a job's worker is terminated and the job fails with its timeout error; a new worker takes the next", async () => {
    const pool = new WorkerPool(1, start, "test worker");
    const first = (await pool.submit(1)) as { threadId: number };
    const started = Date.now();
    await expect(pool.submit("spin", { timeoutMs: 200, timeoutError: () => new Slow("slow") })).rejects.toBeInstanceOf(Slow);
    expect(Date.now() - started).toBeLessThan(5000);
    const next = (await pool.submit(5)) as { doubled: number; threadId: number };
    expect(next.doubled).toBe(10);
    expect(next.threadId).not.toBe(first.threadId);
  });

  it("a worker that exits fails its job only; the queued job runs on a new worker", async () => {
    const pool = new WorkerPool(1, start, "test worker");
    const died = pool.submit("die");
    const queued = pool.submit(21);
    await expect(died).rejects.toThrow("test worker exited");
    expect(((await queued) as { doubled: number }).doubled).toBe(42);
  });

  it("a job without a time limit is not stopped by one", async () => {
    const pool = new WorkerPool(1, start, "test worker");
    expect(((await pool.submit(3, {})) as { doubled: number }).doubled).toBe(6);
  });
});
