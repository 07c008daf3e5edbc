import { describe, expect, it } from "vitest";
import { RenderLanes } from "./render-lanes";

/** A piece of work that ends when the test says so. */
function held<T>(value: T) {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  let started = false;
  return {
    work: async () => {
      started = true;
      await done;
      return value;
    },
    finish,
    get started() {
      return started;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("RenderLanes", () => {
  it("runs at most `running` of one account at once, the next `waiting` in order, and refuses past them without running", async () => {
    const lanes = new RenderLanes({ running: 2, waiting: 2 });
    const jobs = [1, 2, 3, 4, 5].map(held);
    const results = jobs.map((j) => lanes.run("a", j.work));
    await tick();
    expect(jobs.map((j) => j.started)).toEqual([true, true, false, false, false]);
    expect(await results[4]).toEqual({ ok: false });
    expect(lanes.sizeOf("a")).toEqual({ running: 2, waiting: 2 });

    jobs[1]!.finish();
    expect(await results[1]).toEqual({ ok: true, value: 2 });
    await tick();
    expect(jobs.map((j) => j.started)).toEqual([true, true, true, false, false]);
    jobs[0]!.finish();
    jobs[2]!.finish();
    await tick();
    expect(jobs[3]!.started).toBe(true);
    jobs[3]!.finish();
    expect(await Promise.all(results.slice(0, 4))).toEqual([1, 2, 3, 4].map((value) => ({ ok: true, value })));
    expect(lanes.sizeOf("a")).toEqual({ running: 0, waiting: 0 });
  });

  it("a full line of one account never delays another account's render", async () => {
    const lanes = new RenderLanes({ running: 2, waiting: 8 });
    const a = Array.from({ length: 10 }, (_, i) => held(i));
    const aResults = a.map((j) => lanes.run("a", j.work));
    const b = held("b");
    const bResult = lanes.run("b", b.work);
    await tick();
    expect(b.started).toBe(true);
    b.finish();
    expect(await bResult).toEqual({ ok: true, value: "b" });
    for (const j of a) j.finish();
    await Promise.all(aResults);
  });

  it("gives the slot back when the work throws", async () => {
    const lanes = new RenderLanes({ running: 1, waiting: 0 });
    await expect(lanes.run("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await lanes.run("a", async () => 7)).toEqual({ ok: true, value: 7 });
  });
});
