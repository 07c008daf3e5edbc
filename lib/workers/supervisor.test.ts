import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { READY_MESSAGE, startSupervisor } from "./supervisor";

/** Real child processes: tiny scripts written for each case. */
function script(body: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "mailroom-supervisor-")), "child.mjs");
  writeFileSync(file, body);
  return file;
}
const log = pino({ level: "silent" });
const child = (modulePath: string) => ({ modulePath, args: [], env: process.env, execArgv: [] });

describe("worker process supervisor", () => {
  it("restarts a child that keeps dying, with a growing delay", async () => {
    const file = script(`process.exit(3);`);
    const supervisor = startSupervisor({ count: 1, child: child(file), log, readyTimeoutMs: 100, backoff: { initialMs: 50, maxMs: 400, resetAfterMs: 60_000 } });
    await supervisor.ready;
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 1200));
    await supervisor.stop();
    // Delays 50, 100, 200, 400, 400 ms (plus the start of each node): a few restarts, not one per event-loop turn.
    expect(supervisor.restarts()).toBeGreaterThanOrEqual(2);
    expect(supervisor.restarts()).toBeLessThanOrEqual(6);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("waits for ready, stops children with SIGTERM, and kills one that ignores it after the timeout", async () => {
    const polite = script(`process.send(${JSON.stringify(READY_MESSAGE)}); process.on("SIGTERM", () => setTimeout(() => process.exit(0), 100)); setInterval(() => {}, 1000);`);
    const stubborn = script(`process.send(${JSON.stringify(READY_MESSAGE)}); process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);`);
    const a = startSupervisor({ count: 2, child: child(polite), log, stopTimeoutMs: 5000 });
    await a.ready;
    expect(a.pids()).toHaveLength(2);
    const t0 = Date.now();
    await a.stop();
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(a.pids()).toHaveLength(0);

    const b = startSupervisor({ count: 1, child: child(stubborn), log, stopTimeoutMs: 300, nice: 5 });
    await b.ready;
    const [pid] = b.pids();
    // MAILROOM_WORKER_NICE: the worker yields the CPU to the app process.
    expect(os.getPriority(pid!)).toBe(Math.min(19, os.getPriority() + 5));
    await b.stop();
    expect(() => process.kill(pid!, 0)).toThrow();
    expect(b.restarts()).toBe(0);
  });
});
