import { describe, expect, it } from "vitest";
import { createLogger } from "../../logger";
import { BacklogFullError, createBacklogMonitor } from "./delivery-backlog";

const log = createLogger("silent");

describe("the delivery backlog monitor", () => {
  it("refuses from the maximum on, reads only up to it, and accepts again below it", async () => {
    let depth = 3;
    const bounds: number[] = [];
    const m = createBacklogMonitor({ max: 5, intervalMs: 1000, log, read: async (bound) => (bounds.push(bound), depth) });
    m.assertAccepting(); // nothing sampled yet: accepting
    expect(await m.sample()).toBe(3);
    expect(m.full()).toBe(false);
    depth = 5;
    await m.sample();
    expect(m.full()).toBe(true);
    expect(() => m.assertAccepting()).toThrow(BacklogFullError);
    depth = 4;
    await m.sample();
    expect(() => m.assertAccepting()).not.toThrow();
    expect(bounds).toEqual([5, 5, 5]);
  });

  it("does not take an unreachable database for a full backlog", async () => {
    let fail = false;
    const m = createBacklogMonitor({ max: 1, intervalMs: 1000, log, read: async () => (fail ? Promise.reject(new Error("ECONNREFUSED")) : 9) });
    await m.sample();
    expect(m.full()).toBe(true);
    fail = true;
    expect(await m.sample()).toBeUndefined();
    expect(m.full()).toBe(false);
  });

  it("with a maximum of 0 never reads and never refuses", async () => {
    let reads = 0;
    const m = createBacklogMonitor({ max: 0, intervalMs: 1000, log, read: async () => (reads++, 1_000_000) });
    m.start();
    expect(await m.sample()).toBeUndefined();
    m.assertAccepting();
    m.stop();
    expect(reads).toBe(0);
  });

  it("tells the refused client to come back in a second", () => {
    const err = new BacklogFullError(12, 10);
    expect(err.retryAfter).toBe(1);
    expect(err.message).toMatch(/12 messages wait for delivery/);
  });
});
