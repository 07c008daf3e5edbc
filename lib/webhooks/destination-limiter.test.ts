import { describe, expect, it } from "vitest";
import { DestinationLimiter } from "./destination-limiter";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("DestinationLimiter", () => {
  it("runs at most perDestination tasks per destination and queues the next ones", async () => {
    const limiter = new DestinationLimiter(2, 10);
    const releases: (() => void)[] = [];
    let running = 0;
    let peak = 0;
    const task = () =>
      new Promise<void>((resolve) => {
        running++;
        peak = Math.max(peak, running);
        releases.push(() => {
          running--;
          resolve();
        });
      });
    for (let i = 0; i < 5; i++) expect(limiter.tryRun("slow.test", task)).toBe(true);
    expect(running).toBe(2);
    expect(limiter.load("slow.test")).toBe(5);
    while (releases.length) {
      releases.shift()!();
      await tick();
    }
    expect(peak).toBe(2);
    expect(limiter.load("slow.test")).toBe(0);
  });

  it("lets a fast destination run while a slow one is saturated", async () => {
    const limiter = new DestinationLimiter(1, 100);
    limiter.tryRun("slow.test", () => new Promise(() => {}));
    for (let i = 0; i < 50; i++) limiter.tryRun("slow.test", () => new Promise(() => {}));
    let fastDone = 0;
    for (let i = 0; i < 3; i++) limiter.tryRun("fast.test", async () => void fastDone++);
    await tick();
    expect(fastDone).toBe(3);
  });

  it("refuses past the waiting bound and drops waiting tasks on demand", () => {
    const limiter = new DestinationLimiter(1, 2);
    const never = () => new Promise<void>(() => {});
    expect([1, 2, 3, 4].map(() => limiter.tryRun("x", never))).toEqual([true, true, true, false]);
    expect(limiter.dropWaiting()).toBe(2);
    expect(limiter.load("x")).toBe(1);
  });
});
