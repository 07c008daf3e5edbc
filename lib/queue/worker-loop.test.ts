import pino from "pino";
import { describe, expect, it } from "vitest";
import type { PgBoss } from "./boss";
import { startJobLoop } from "./worker-loop";

/** The slice of pg-boss the loop uses, over an in-memory list (pg-boss itself is exercised by the integration tests). */
function fakeBoss(jobs: { id: string; data: number }[]) {
  const completed: string[] = [];
  const failed: string[] = [];
  let fetches = 0;
  const boss = {
    async fetch(_name: string, options: { batchSize: number }) {
      fetches++;
      return jobs.splice(0, options.batchSize);
    },
    async complete(_name: string, ids: string[]) {
      completed.push(...ids);
    },
    async fail(_name: string, id: string) {
      failed.push(id);
    },
  };
  return { boss: boss as unknown as PgBoss, completed, failed, fetches: () => fetches };
}

const log = pino({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("startJobLoop", () => {
  it("keeps at most `concurrency` jobs in flight, completes each, fails the ones that throw", async () => {
    const f = fakeBoss(Array.from({ length: 20 }, (_, i) => ({ id: `j${i}`, data: i })));
    let running = 0;
    let peak = 0;
    const loop = startJobLoop<number>(f.boss, {
      queue: "q",
      concurrency: 4,
      pollIntervalMs: 1000,
      log,
      handler: async (n) => {
        running++;
        peak = Math.max(peak, running);
        await sleep(5 + (n % 3) * 5);
        running--;
        if (n === 7) throw new Error("boom");
      },
    });
    for (let i = 0; i < 100 && f.completed.length + f.failed.length < 20; i++) await sleep(10);
    await loop.stop();
    expect(peak).toBe(4);
    expect(f.failed).toEqual(["j7"]);
    const expected = Array.from({ length: 20 }, (_, i) => `j${i}`).filter((j) => j !== "j7");
    expect(f.completed.sort()).toEqual(expected.sort());
  });

  it("fetches at once when notified instead of waiting for the poll", async () => {
    const jobs: { id: string; data: number }[] = [];
    const f = fakeBoss(jobs);
    const seen: number[] = [];
    const loop = startJobLoop<number>(f.boss, { queue: "q", concurrency: 2, pollIntervalMs: 60_000, log, handler: async (n) => void seen.push(n) });
    await sleep(20);
    jobs.push({ id: "late", data: 42 });
    loop.notify();
    for (let i = 0; i < 50 && !seen.length; i++) await sleep(5);
    expect(seen).toEqual([42]);
    await loop.stop();
    expect(f.completed).toEqual(["late"]);
  });

  it("waits for jobs in flight when stopped", async () => {
    const f = fakeBoss([{ id: "slow", data: 1 }]);
    let finished = false;
    const loop = startJobLoop<number>(f.boss, {
      queue: "q",
      concurrency: 1,
      pollIntervalMs: 1000,
      log,
      handler: async () => {
        await sleep(50);
        finished = true;
      },
    });
    await sleep(10);
    await loop.stop();
    expect(finished).toBe(true);
    expect(f.completed).toEqual(["slow"]);
  });
});
