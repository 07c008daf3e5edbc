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

  it("refuses past the waiting bound and hands waiting tasks back on demand", () => {
    const limiter = new DestinationLimiter(1, 2);
    const never = () => new Promise<void>(() => {});
    let handedBack = 0;
    expect([1, 2, 3, 4].map(() => limiter.tryRun("x", never, () => handedBack++))).toEqual([true, true, true, false]);
    expect(limiter.drainWaiting()).toBe(2);
    expect(handedBack).toBe(2);
    expect(limiter.load("x")).toBe(1);
  });

  it("hands back, instead of running, a task that waited longer than maxWaitMs", async () => {
    let t = 0;
    const limiter = new DestinationLimiter(1, 10, 1_000, () => t);
    let release!: () => void;
    const ran: string[] = [];
    const back: string[] = [];
    limiter.tryRun("x", () => new Promise<void>((r) => (release = r)));
    limiter.tryRun("x", async () => void ran.push("old"), () => back.push("old"));
    t = 900;
    limiter.tryRun("x", async () => void ran.push("recent"), () => back.push("recent"));
    t = 1_500; // "old" has waited 1.5 s, "recent" 0.6 s
    release();
    await tick();
    expect(back).toEqual(["old"]);
    expect(ran).toEqual(["recent"]);
  });
});
