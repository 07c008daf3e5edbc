import { describe, expect, it } from "vitest";
import { createCleanStop, watchParent } from "./clean-stop";

function rig() {
  const calls: string[] = [];
  const timers: (() => void)[] = [];
  let release: () => void = () => {};
  const stopper = createCleanStop({
    boundMs: 1000,
    lastResort: async () => void calls.push("last resort"),
    exit: (code) => void calls.push(`exit ${code}`),
    log: () => {},
    setTimer: (fn) => void timers.push(fn),
  });
  const slowStop = () =>
    new Promise<void>((resolve) => {
      calls.push("stop");
      release = () => {
        calls.push("stopped");
        resolve();
      };
    });
  return { calls, timers, stopper, slowStop, release: () => release() };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("createCleanStop", () => {
  it("stops once in order, then the last resort, then exits 0, however often it is asked", async () => {
    const r = rig();
    r.stopper.started(r.slowStop);
    r.stopper.request("SIGTERM");
    r.stopper.request("SIGINT");
    r.stopper.request("the parent process is gone");
    await tick();
    r.release();
    await tick();
    await tick();
    expect(r.calls).toEqual(["stop", "stopped", "last resort", "exit 0"]);
  });

  it("a stop asked for during the start runs once the start is done", async () => {
    const r = rig();
    r.stopper.request("SIGTERM");
    await tick();
    expect(r.calls).toEqual([]);
    r.stopper.started(async () => void r.calls.push("stop"));
    await tick();
    await tick();
    expect(r.calls).toEqual(["stop", "last resort", "exit 0"]);
  });

  it("past the bound, runs the last resort and exits 1 without waiting for the stop", async () => {
    const r = rig();
    r.stopper.started(r.slowStop);
    r.stopper.request("SIGTERM");
    await tick();
    r.timers[0]!();
    await tick();
    expect(r.calls).toEqual(["stop", "last resort", "exit 1"]);
    r.release();
    await tick();
    await tick();
    // The ordered stop ending later exits no second time.
    expect(r.calls.filter((c) => c.startsWith("exit"))).toEqual(["exit 1"]);
  });

  it("a failed stop still runs the last resort and exits 1", async () => {
    const r = rig();
    r.stopper.started(async () => {
      throw new Error("pool would not close");
    });
    r.stopper.request("SIGHUP");
    await tick();
    await tick();
    expect(r.calls).toEqual(["last resort", "exit 1"]);
  });
});

describe("watchParent", () => {
  it("tells once when the parent pid changes", () => {
    let parent = 4242;
    let check: () => void = () => {};
    let gone = 0;
    watchParent(() => parent, () => gone++, (fn) => (check = fn));
    check();
    expect(gone).toBe(0);
    parent = 1;
    check();
    check();
    expect(gone).toBe(1);
  });
  it("never watches a process started by init", () => {
    let watched = false;
    watchParent(() => 1, () => {}, () => (watched = true));
    expect(watched).toBe(false);
  });
});
