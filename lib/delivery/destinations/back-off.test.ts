import { describe, expect, it } from "vitest";
import { AcceptedLastMinute, complain, relax, throttleEndsAt } from "./back-off";

describe("back-off", () => {
  it("halves what the destination took in the last minute, and the connections", () => {
    const t = complain(undefined, { now: 1000, acceptedLastMinute: 60, connectionsInUse: 8, reason: "421 4.7.28" });
    expect(t).toMatchObject({ perMinute: 30, connections: 4, ceilingPerMinute: 60 });
  });

  it("takes complaints within the cool-down as one, then halves again", () => {
    const t = complain(undefined, { now: 0, acceptedLastMinute: 60, connectionsInUse: 8, reason: "a" });
    expect(complain(t, { now: 10_000, acceptedLastMinute: 0, connectionsInUse: 1, reason: "b" })).toMatchObject({ perMinute: 30, reason: "b" });
    expect(complain(t, { now: 30_000, acceptedLastMinute: 0, connectionsInUse: 1, reason: "c" })).toMatchObject({ perMinute: 15, connections: 2, ceilingPerMinute: 60 });
  });

  it("never goes below the floor", () => {
    let t = complain(undefined, { now: 0, acceptedLastMinute: 0, connectionsInUse: 1, reason: "a" });
    for (let i = 1; i < 10; i++) t = complain(t, { now: i * 30_000, acceptedLastMinute: 0, connectionsInUse: 1, reason: "a" });
    expect(t).toMatchObject({ perMinute: 6, connections: 1 });
  });

  it("raises a quarter a step and ends at its ceiling", () => {
    const t = complain(undefined, { now: 0, acceptedLastMinute: 60, connectionsInUse: 4, reason: "a" });
    expect(relax(t, 29_999)).toBe(t);
    expect(relax(t, 30_000)).toMatchObject({ perMinute: 38, connections: 3 });
    expect(relax(t, 60_000)).toMatchObject({ perMinute: 48 });
    expect(relax(t, 90_000)).toBeUndefined();
  });

  it("knows when a throttle ends without another complaint: where relax gives it up", () => {
    const t = complain(undefined, { now: 0, acceptedLastMinute: 60, connectionsInUse: 4, reason: "a" });
    expect(throttleEndsAt(t)).toBe(90_000);
    expect(relax(t, throttleEndsAt(t) - 1)).toBeDefined();
    expect(relax(t, throttleEndsAt(t))).toBeUndefined();
    const low = complain(undefined, { now: 5_000, acceptedLastMinute: 0, connectionsInUse: 1, reason: "a" });
    expect(relax(low, throttleEndsAt(low, { stepMs: 10_000 }) - 1, { stepMs: 10_000 })).toBeDefined();
    expect(relax(low, throttleEndsAt(low, { stepMs: 10_000 }), { stepMs: 10_000 })).toBeUndefined();
  });

  it("counts the answers of the last minute", () => {
    const c = new AcceptedLastMinute();
    for (let i = 0; i < 10; i++) c.add(i * 1000);
    expect(c.count(9_000)).toBe(10);
    expect(c.count(64_500)).toBe(5);
    expect(c.count(200_000)).toBe(0);
  });
});
