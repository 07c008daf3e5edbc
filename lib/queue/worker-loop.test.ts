import pino from "pino";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import type { QueueSpec } from "../jobs/job-definition";
import { keysAtCap, SETTLED, startJobLoop, type JobSource } from "./worker-loop";

/** The slice of pg-boss the loop uses, over an in-memory list (pg-boss itself is exercised by the integration tests). */
function fakeBoss(jobs: { id: string; data: unknown }[]) {
  const completed: string[] = [];
  const failed: string[] = [];
  const failedForGood: { id: string; reason: string }[] = [];
  let fetches = 0;
  const boss: JobSource = {
    async fetch(_name, options) {
      fetches++;
      return jobs.splice(0, options.batchSize ?? 1);
    },
    async fail(_name, id) {
      failed.push(id);
    },
    getDb: () => ({
      // completeJobs ($1 ids, the queue's name in the text) and failJobForGood ($1 name, $2 id, $3 output), lib/storage/job-rows.ts.
      async executeSql(text: string, values: unknown[]) {
        if (text.includes("'completed'") && text.includes("id = ANY($1::uuid[])")) completed.push(...(values[0] as string[]));
        else if (text.includes("'failed'")) failedForGood.push({ id: values[1] as string, reason: JSON.parse(values[2] as string).message });
        return { rows: [] };
      },
    }),
  };
  return { boss, completed, failed, failedForGood, fetches: () => fetches };
}

const numbers: QueueSpec<number> = { name: "q", schema: z.number().int(), policy: { retryLimit: 1, retryDelay: 1, retryBackoff: false } };
const log = pino({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("startJobLoop", () => {
  it("keeps at most `concurrency` jobs in flight, completes each, fails the ones that throw", async () => {
    const f = fakeBoss(Array.from({ length: 20 }, (_, i) => ({ id: `j${i}`, data: i })));
    let running = 0;
    let peak = 0;
    const loop = startJobLoop(f.boss, {
      queue: numbers,
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

  it("runs up to `extraSlots` more jobs (at most `concurrency` more) while they are offered", async () => {
    for (const [extra, expected] of [
      [2, 6],
      [100, 8],
      [-3, 4],
    ] as const) {
      const f = fakeBoss(Array.from({ length: 30 }, (_, i) => ({ id: `j${i}`, data: i })));
      let running = 0;
      let peak = 0;
      const loop = startJobLoop(f.boss, {
        queue: numbers,
        concurrency: 4,
        maxBatch: 1,
        pollIntervalMs: 1000,
        log,
        extraSlots: () => extra,
        handler: async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(20);
          running--;
        },
      });
      for (let i = 0; i < 200 && f.completed.length < 30; i++) await sleep(10);
      await loop.stop();
      expect(f.completed.length).toBe(30);
      expect(peak).toBe(expected);
    }
  });

  it("fails a job whose payload does not parse, with the reason, without calling the handler or stopping", async () => {
    const f = fakeBoss([
      { id: "bad", data: { not: "a number" } },
      { id: "good", data: 3 },
    ]);
    const seen: number[] = [];
    const loop = startJobLoop(f.boss, { queue: numbers, concurrency: 1, pollIntervalMs: 1000, log, handler: async (n) => void seen.push(n) });
    for (let i = 0; i < 50 && f.completed.length === 0; i++) await sleep(5);
    await loop.stop();
    expect(seen).toEqual([3]);
    expect(f.completed).toEqual(["good"]);
    expect(f.failed).toEqual([]);
    expect(f.failedForGood).toEqual([{ id: "bad", reason: expect.stringMatching(/^Invalid q payload \(payload: .+\); not retried$/) }]);
  });

  it("leaves completion to a handler that settles its own jobs", async () => {
    const f = fakeBoss([{ id: "own", data: 1 }]);
    let ran = false;
    const loop = startJobLoop(f.boss, {
      queue: numbers,
      concurrency: 2,
      pollIntervalMs: 1000,
      log,
      handler: async () => {
        ran = true;
        return SETTLED;
      },
    });
    for (let i = 0; i < 50 && !ran; i++) await sleep(5);
    await loop.stop();
    expect(ran).toBe(true);
    expect(f.completed).toEqual([]);
  });

  it("fetches at most maxBatch jobs at a time", async () => {
    const f = fakeBoss(Array.from({ length: 10 }, (_, i) => ({ id: `j${i}`, data: i })));
    const loop = startJobLoop(f.boss, { queue: numbers, concurrency: 10, maxBatch: 3, pollIntervalMs: 1000, log, handler: async () => void (await sleep(5)) });
    for (let i = 0; i < 100 && f.completed.length < 10; i++) await sleep(5);
    await loop.stop();
    expect(f.completed).toHaveLength(10);
    expect(f.fetches()).toBeGreaterThanOrEqual(4);
  });

  it("fetches at once when notified instead of waiting for the poll", async () => {
    const jobs: { id: string; data: unknown }[] = [];
    const f = fakeBoss(jobs);
    const seen: number[] = [];
    const loop = startJobLoop(f.boss, { queue: numbers, concurrency: 2, pollIntervalMs: 60_000, log, handler: async (n) => void seen.push(n) });
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
    const loop = startJobLoop(f.boss, {
      queue: numbers,
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

describe("startJobLoop's outage callback", () => {
  it("hands database outages to it instead of warning, and warns for the rest", async () => {
    const f = fakeBoss([
      { id: "a", data: 1 },
      { id: "b", data: 2 },
    ]);
    const warned: string[] = [];
    const warnLog = pino({ level: "warn" }, { write: (line: string) => void warned.push(JSON.parse(line).msg) });
    const handed: Record<string, unknown>[] = [];
    const loop = startJobLoop(f.boss, {
      queue: numbers,
      concurrency: 2,
      pollIntervalMs: 1000,
      log: warnLog,
      outage: (err, detail) => {
        const isOutage = (err as { code?: string }).code === "ECONNREFUSED";
        if (isOutage) handed.push(detail);
        return isOutage;
      },
      handler: async (n) => {
        if (n === 1) throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
        throw new Error("a defect");
      },
    });
    for (let i = 0; i < 100 && f.failed.length < 2; i++) await sleep(10);
    await loop.stop();
    expect(handed).toEqual([{ queue: "q", jobId: "a" }]);
    expect(warned).toEqual(["job failed; pg-boss will retry it"]);
  });
});

describe("accounts' turns: the cap per key", () => {
  it("skips a key at its cap, not counting its jobs held by stalls", () => {
    const inFlight = new Map([
      ["tenant-a", 48],
      ["tenant-b", 3],
    ]);
    expect(keysAtCap(inFlight, 48)).toEqual(["tenant-a"]);
    // 40 of A's jobs wait on a tarpit: A may run as many more.
    expect(keysAtCap(inFlight, 48, (k) => (k === "tenant-a" ? 40 : 0))).toEqual([]);
    expect(keysAtCap(new Map([["tenant-a", 90]]), 48, () => 40)).toEqual(["tenant-a"]);
    // Never more than its jobs, never less than none.
    expect(keysAtCap(new Map([["tenant-a", 48]]), 48, () => -5)).toEqual(["tenant-a"]);
  });
});
