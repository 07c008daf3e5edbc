import { describe, expect, it } from "vitest";
import { createGroupCommit } from "./group-commit";

function deferred() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

describe("group commit", () => {
  it("writes a lone item at once, alone", async () => {
    const batches: number[][] = [];
    const submit = createGroupCommit(async (items: number[]) => {
      batches.push(items);
      return items.map((n) => n * 10);
    }, { maxBatch: 8, maxInFlight: 1 });
    expect(await submit(1)).toBe(10);
    expect(await submit(2)).toBe(20);
    expect(batches).toEqual([[1], [2]]);
  });

  it("writes the items that arrive during a write together, each caller getting its own result", async () => {
    const batches: number[][] = [];
    const gate = deferred();
    const submit = createGroupCommit(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await gate.done;
      return items.map((n) => n + 100);
    }, { maxBatch: 3, maxInFlight: 1 });
    const results = [submit(1), submit(2), submit(3), submit(4), submit(5), submit(6)];
    gate.release();
    expect(await Promise.all(results)).toEqual([101, 102, 103, 104, 105, 106]);
    // The first write ran alone; the next five waited and were cut at maxBatch.
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it("counts an item by its weight: a heavy one is written alone, never split, and light ones fill up to maxBatch", async () => {
    const batches: number[][] = [];
    const gate = deferred();
    const submit = createGroupCommit(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await gate.done;
      return items;
    }, { maxBatch: 10, maxInFlight: 1, weightOf: (n) => n });
    const results = [submit(1), submit(4), submit(5), submit(50), submit(3), submit(7)];
    gate.release();
    expect(await Promise.all(results)).toEqual([1, 4, 5, 50, 3, 7]);
    expect(batches).toEqual([[1], [4, 5], [50], [3, 7]]);
  });

  it("runs at most maxInFlight writes at a time", async () => {
    let running = 0;
    let peak = 0;
    const submit = createGroupCommit(async (items: number[]) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return items;
    }, { maxBatch: 2, maxInFlight: 2 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => submit(i)));
    expect(peak).toBe(2);
  });

  it("writes the items of a failed batch one by one when the error may come from one item", async () => {
    const gate = deferred();
    let calls = 0;
    const submit = createGroupCommit(async (items: number[]) => {
      calls++;
      if (calls === 1) await gate.done;
      if (items.includes(13)) throw Object.assign(new Error("bad row"), { code: "22P05" });
      return items;
    }, { maxBatch: 8, maxInFlight: 1, isolate: (err) => (err as { code?: string }).code?.startsWith("22") === true });
    const first = submit(0);
    const rest = [12, 13, 14].map((n) => submit(n).then((v) => ({ ok: v }), (e: Error) => ({ error: e.message })));
    gate.release();
    await first;
    expect(await Promise.all(rest)).toEqual([{ ok: 12 }, { error: "bad row" }, { ok: 14 }]);
  });

  it("fails the whole batch at once on any other error", async () => {
    let calls = 0;
    const gate = deferred();
    const submit = createGroupCommit(async (items: number[]) => {
      calls++;
      if (calls === 1) {
        await gate.done;
        return items;
      }
      throw new Error("connection terminated");
    }, { maxBatch: 8, maxInFlight: 1, isolate: () => false });
    const first = submit(0);
    const rest = [1, 2, 3].map((n) => submit(n).catch((e: Error) => e.message));
    gate.release();
    await first;
    expect(await Promise.all(rest)).toEqual(["connection terminated", "connection terminated", "connection terminated"]);
    expect(calls).toBe(2);
  });
});
