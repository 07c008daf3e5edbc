import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createOutageLog, OutageTracker, summaryLines } from "./outage-log";
import { DiskSpaceLowError } from "./unavailable";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
const diskFull = () => Object.assign(new Error('could not write to file "pg_wal/x": No space left on device'), { code: "53100" });

function captured(level = "debug") {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}

describe("OutageTracker", () => {
  it("marks the first failure of each component, counts the rest, and ends after a quiet probe", () => {
    const t = new OutageTracker();
    expect(t.failure("api", "unavailable", 1000)).toBe(true);
    expect(t.failure("api", "unavailable", 1100)).toBe(false);
    expect(t.failure("webhooks", "unavailable", 1200)).toBe(true);
    expect(t.failure("api", "unavailable", 1300)).toBe(false);
    expect(t.active).toBe(true);
    // Answered, but a failure came less than quietMs ago: not over yet (a full disk fails writes while reads succeed).
    expect(t.answered(1500, 1000)).toBeUndefined();
    const s = t.answered(2300, 1000)!;
    expect(s).toEqual({ kind: "unavailable", startedAt: 1000, endedAt: 2300, counts: { api: 3, webhooks: 1 } });
    expect(t.active).toBe(false);
    expect(t.answered(5000, 1000)).toBeUndefined(); // once
    // The next outage is a new one: its first failure is marked again.
    expect(t.failure("api", "unavailable", 6000)).toBe(true);
  });

  it("names a full disk when any failure of the outage said so", () => {
    const t = new OutageTracker();
    t.failure("api", "disk-full", 0);
    t.failure("api", "unavailable", 10); // the postmaster exits on it: connections refused after
    expect(t.answered(5000, 1000)!.kind).toBe("disk-full");
  });

  it("words the summary per component", () => {
    const lines = summaryLines({ kind: "unavailable", startedAt: 0, endedAt: 4200, counts: { api: 312, webhooks: 118 } });
    expect(lines.map((l) => l.text)).toEqual([
      "database unavailable: 312 requests answered 503 during the outage (4.2 s)",
      "database unavailable: 118 webhook notification steps failed (retried) during the outage (4.2 s)",
    ]);
  });
});

describe("createOutageLog", () => {
  afterEach(() => vi.useRealTimers());

  it("logs one error line per component and outage, debug after it, and a warn summary with the count once the database answers", async () => {
    vi.useFakeTimers();
    const { log, lines } = captured();
    let up = false;
    const outage = createOutageLog(log, async () => {
      if (!up) throw refused();
    });
    for (let i = 0; i < 313; i++) expect(outage.report("api", refused(), { path: "/api/v1/email" })).toBe("unavailable");
    for (let i = 0; i < 118; i++) outage.report("webhooks", refused());
    expect(outage.active).toBe(true);
    await vi.advanceTimersByTimeAsync(5000); // probes fail: still down, nothing more logged
    expect(lines.filter((l) => l.level === 50)).toHaveLength(2);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(0);
    up = true;
    await vi.advanceTimersByTimeAsync(1000);
    const errors = lines.filter((l) => l.level === 50);
    expect(errors.map((l) => l.component)).toEqual(["api", "webhooks"]);
    expect(errors[0]!.msg).toContain("database unavailable (api)");
    expect(lines.filter((l) => l.level === 20)).toHaveLength(313 + 118 - 2);
    const warns = lines.filter((l) => l.level === 40);
    expect(warns.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^database unavailable: 313 requests answered 503 during the outage/),
      expect.stringMatching(/^database unavailable: 118 webhook notification steps failed/),
    ]);
    expect(warns[0]!.count).toBe(313);
    expect(outage.active).toBe(false);
    // The probe stops with the outage: no timer left.
    expect(vi.getTimerCount()).toBe(0);
    outage.stop();
  });

  it("says the disk is full, and leaves other errors to the caller", () => {
    const { log, lines } = captured();
    const outage = createOutageLog(log, async () => {});
    expect(outage.report("smtp", new TypeError("x is undefined"))).toBeUndefined();
    expect(lines).toHaveLength(0);
    expect(outage.report("smtp", diskFull())).toBe("disk-full");
    expect(lines[0]!.level).toBe(50);
    expect(lines[0]!.msg).toContain("database disk full (smtp)");
    outage.stop();
  });

  it("does not count acceptance paused below the reserve as a database outage", () => {
    const { log, lines } = captured();
    const outage = createOutageLog(log, async () => {});
    expect(outage.report("api", new DiskSpaceLowError(1, 2))).toBe("disk-full");
    expect(outage.active).toBe(false);
    expect(lines).toHaveLength(0);
    outage.stop();
  });

  it("stays quiet at debug when the logger's level is above it", () => {
    const { log, lines } = captured("warn");
    const outage = createOutageLog(log, async () => {
      throw refused();
    });
    for (let i = 0; i < 50; i++) outage.report("delivery", refused());
    expect(lines).toHaveLength(1);
    outage.stop();
  });
});
