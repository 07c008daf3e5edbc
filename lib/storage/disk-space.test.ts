import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createDiskMonitor, diskStatusOf, thresholdBytes } from "./disk-space";
import { DiskSpaceLowError, isDiskFull } from "./unavailable";

const MB = 1024 * 1024;
const GB = 1024 * MB;

function captured() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

describe("diskStatusOf", () => {
  const thresholds = { warnFree: { bytes: GB }, minFree: { bytes: 256 * MB } };
  it.each([
    [2 * GB, "ok"],
    [GB, "ok"], // at the threshold: not below it
    [GB - 1, "low"],
    [256 * MB, "low"],
    [256 * MB - 1, "critical"],
    [0, "critical"],
  ])("%d bytes free is %s", (free, level) => {
    expect(diskStatusOf({ freeBytes: free, totalBytes: 10 * GB, at: 0 }, thresholds).level).toBe(level);
  });

  it("takes percentages of the file system's size", () => {
    expect(thresholdBytes({ percent: 10 }, 300 * MB)).toBe(30 * MB);
    const s = diskStatusOf({ freeBytes: 20 * MB, totalBytes: 300 * MB, at: 0 }, { warnFree: { percent: 20 }, minFree: { percent: 5 } });
    expect(s).toMatchObject({ level: "low", warnFreeBytes: 60 * MB, minFreeBytes: 15 * MB });
  });
});

describe("createDiskMonitor", () => {
  it("logs each change of level once, refuses acceptance below the minimum, and accepts again when space is freed", async () => {
    const { log, lines } = captured();
    let free = 2 * GB;
    const monitor = createDiskMonitor({
      dir: "/data",
      thresholds: { warnFree: { bytes: GB }, minFree: { bytes: 256 * MB } },
      intervalMs: 1000,
      log,
      statfs: async () => ({ bavail: free / 4096, blocks: (10 * GB) / 4096, bsize: 4096 }),
    });
    expect(monitor.status()).toBeUndefined();
    monitor.assertAccepting(); // nothing known yet: accept
    await monitor.sample();
    expect(monitor.status()).toMatchObject({ level: "ok", freeBytes: 2 * GB, totalBytes: 10 * GB });
    expect(lines).toHaveLength(0);

    free = 512 * MB;
    await monitor.sample();
    await monitor.sample();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, expect.stringContaining("data directory low on space (512 MB free")]]);
    monitor.assertAccepting();

    free = 100 * MB;
    await monitor.sample();
    expect(lines[1]).toMatchObject({ level: 50, msg: expect.stringContaining("new messages are refused with 503") });
    let thrown: unknown;
    try {
      monitor.assertAccepting();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DiskSpaceLowError);
    expect(isDiskFull(thrown)).toBe(true);

    free = 5 * GB;
    await monitor.sample();
    monitor.assertAccepting();
    expect(lines[2]).toMatchObject({ level: 30, msg: expect.stringContaining("accepting messages again") });
    expect(lines).toHaveLength(3);
  });

  it("watches nothing without a directory, and accepts when statfs fails (warned once)", async () => {
    const { log, lines } = captured();
    const none = createDiskMonitor({ dir: undefined, thresholds: { warnFree: { bytes: GB }, minFree: { bytes: GB } }, intervalMs: 1000, log });
    expect(await none.sample()).toBeUndefined();
    none.start(); // no timer without a directory
    none.stop();
    const failing = createDiskMonitor({
      dir: "/gone",
      thresholds: { warnFree: { bytes: GB }, minFree: { bytes: GB } },
      intervalMs: 1000,
      log,
      statfs: async () => {
        throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
      },
    });
    await failing.sample();
    await failing.sample();
    failing.assertAccepting();
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe(40);
  });

  it("reads a real directory with node:fs statfs", async () => {
    const { log } = captured();
    const monitor = createDiskMonitor({ dir: process.cwd(), thresholds: { warnFree: { bytes: 0 }, minFree: { bytes: 0 } }, intervalMs: 1000, log });
    const s = await monitor.sample();
    expect(s!.totalBytes).toBeGreaterThan(0);
    expect(s!.freeBytes).toBeGreaterThanOrEqual(0);
    expect(s!.freeBytes).toBeLessThanOrEqual(s!.totalBytes);
  });
});
