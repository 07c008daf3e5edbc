import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limiter";

/** Sends as fast as the limiter allows from t=0 for `ms`; the times of the messages. */
function run(limiter: RateLimiter, ms: number): number[] {
  const sent: number[] = [];
  let now = 0;
  while (now <= ms) {
    const wait = limiter.waitMs(now);
    if (wait > 0) {
      now += wait;
      continue;
    }
    limiter.take(now);
    sent.push(now);
  }
  return sent;
}

describe("RateLimiter", () => {
  it("is unlimited without limits", () => {
    const l = new RateLimiter();
    expect(l.limited).toBe(false);
    l.take(0);
    expect(l.waitMs(0)).toBe(0);
  });

  it("allows a tenth of a window at once, then the steady rate", () => {
    const sent = run(new RateLimiter({ perMinute: 60 }), 120_000);
    expect(sent.filter((t) => t === 0)).toHaveLength(6);
    // Any 60 s window holds at most the limit and its burst.
    for (const start of sent) expect(sent.filter((t) => t >= start && t < start + 60_000).length).toBeLessThanOrEqual(66);
    expect(sent.length).toBeGreaterThanOrEqual(120);
  });

  it("holds to the tightest of several windows", () => {
    const sent = run(new RateLimiter({ perSecond: 10, perMinute: 30, burst: 0 }), 59_999);
    expect(sent.filter((t) => t < 1000)).toHaveLength(1);
    expect(sent).toHaveLength(30);
  });

  it("without burst, spaces every message", () => {
    const sent = run(new RateLimiter({ perMinute: 60, burst: 0 }), 10_000);
    expect(sent).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10_000]);
  });

  it("hands out reservations one interval apart", () => {
    const l = new RateLimiter({ perMinute: 60, burst: 0 });
    l.take(0);
    expect([l.reserve(0), l.reserve(0), l.reserve(0)]).toEqual([1000, 2000, 3000]);
    // Reservations in the past are forgotten.
    expect(l.reserve(10_000)).toBe(10_000);
  });

  it("keeps a chain of moments per account: one account's many reservations never push another's out", () => {
    const l = new RateLimiter({ perSecond: 50, burst: 0 });
    l.take(0);
    const a = Array.from({ length: 5000 }, () => l.reserve(0, "a"));
    expect(a.at(-1)).toBe(5000 * 20);
    expect(l.reserve(0, "b")).toBe(20);
    expect(l.reserve(0, "b")).toBe(40);
    // The account's chain goes on from where it was.
    expect(l.reserve(0, "a")).toBe(5001 * 20);
  });
});
