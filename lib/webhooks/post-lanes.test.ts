import { describe, expect, it } from "vitest";
import { PostLanes } from "./post-lanes";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("PostLanes: slots per destination", () => {
  it("gives perDestination slots at once, the next when one is released", async () => {
    const lanes = new PostLanes(2);
    const a = await lanes.acquire("https://a.example", 1000);
    const b = await lanes.acquire("https://a.example", 1000);
    expect(a && b).toBeTruthy();
    let third: (() => void) | undefined;
    const waiting = lanes.acquire("https://a.example", 1000).then((r) => (third = r));
    await sleep(10);
    expect(third).toBeUndefined();
    expect(lanes.load("https://a.example")).toBe(3);
    a!();
    await waiting;
    expect(third).toBeTypeOf("function");
    expect(lanes.load("https://a.example")).toBe(2);
  });

  it("does not count one destination against another", async () => {
    const lanes = new PostLanes(1);
    expect(await lanes.acquire("https://a.example", 0)).toBeTypeOf("function");
    expect(await lanes.acquire("https://b.example", 0)).toBeTypeOf("function");
    expect(await lanes.acquire("https://a.example", 0)).toBeUndefined();
  });

  it("gives up a wait after maxWaitMs, and the slot freed later goes to the next in line, not to the one gone", async () => {
    const lanes = new PostLanes(1);
    const held = await lanes.acquire("d", 0);
    const later = lanes.acquire("d", 1000);
    const started = Date.now();
    expect(await lanes.acquire("d", 50)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(lanes.load("d")).toBe(2);
    held!();
    const next = await later;
    expect(next).toBeTypeOf("function");
    next!();
    expect(lanes.load("d")).toBe(0);
  });

  it("frees a slot once however often its release is called", async () => {
    const lanes = new PostLanes(1);
    const r = await lanes.acquire("d", 0);
    r!();
    r!();
    expect(lanes.load("d")).toBe(0);
    const a = await lanes.acquire("d", 0);
    expect(a).toBeTypeOf("function");
    r!(); // a stale release does not free the slot a holds
    expect(await lanes.acquire("d", 0)).toBeUndefined();
  });

  it("once a wait was given up, gives up at once while the destination's slots stay taken, and waits again after one ends", async () => {
    const lanes = new PostLanes(1);
    const held = await lanes.acquire("d", 0);
    expect(await lanes.acquire("d", 30)).toBeUndefined();
    const started = Date.now();
    expect(await lanes.acquire("d", 1000)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(20);
    // Another destination is not affected.
    expect(await lanes.acquire("e", 1000)).toBeTypeOf("function");
    // A post of d ends: the next waits again, and gets the slot.
    held!();
    const again = await lanes.acquire("d", 0);
    expect(again).toBeTypeOf("function");
    const waiting = lanes.acquire("d", 1000);
    again!();
    expect(await waiting).toBeTypeOf("function");
  });
});
