import { describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS } from "../config";
import { MAX_RETRY_AFTER_MS, maxAttempts, verdictOf } from "./retry-policy";

describe("verdictOf", () => {
  const schedule = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS;

  it("treats every 2xx as delivered", () => {
    for (const code of [200, 201, 204, 299]) expect(verdictOf(code, 1, schedule)).toEqual({ kind: "delivered" });
  });

  it("stops at 406 without retrying", () => {
    expect(verdictOf(406, 1, schedule)).toEqual({ kind: "refused" });
  });

  it("retries everything else on the schedule of docs/contract.md §10.4: 5m, 10m, 15m, 30m, 1h, 2h, 4h", () => {
    const minutes = [1, 2, 3, 4, 5, 6, 7].map((n) => {
      const v = verdictOf(n % 2 ? 500 : 0, n, schedule);
      return v.kind === "retry" ? v.delayMs / 60_000 : v.kind;
    });
    expect(minutes).toEqual([5, 10, 15, 30, 60, 120, 240]);
    for (const code of [0, 301, 302, 400, 404, 429, 500, 503]) expect(verdictOf(code, 1, schedule).kind).toBe("retry");
  });

  it("gives up after the eighth attempt", () => {
    expect(maxAttempts(schedule)).toBe(8);
    expect(verdictOf(500, 8, schedule)).toEqual({ kind: "exhausted" });
    expect(verdictOf(200, 8, schedule)).toEqual({ kind: "delivered" });
  });

  it("follows a configured schedule", () => {
    const short = [1000, 1000, 2000];
    expect(verdictOf(500, 3, short)).toEqual({ kind: "retry", delayMs: 2000 });
    expect(verdictOf(500, 4, short)).toEqual({ kind: "exhausted" });
  });

  it("stops at 410 (the endpoint is gone) without retrying", () => {
    expect(verdictOf(410, 1, schedule)).toEqual({ kind: "gone" });
  });

  it("waits at least a 429 or 503's Retry-After, at most a day", () => {
    const short = [1000, 1000];
    expect(verdictOf(429, 1, short, { retryAfterMs: 3000 })).toEqual({ kind: "retry", delayMs: 3000 });
    expect(verdictOf(503, 1, short, { retryAfterMs: 10 })).toEqual({ kind: "retry", delayMs: 1000 });
    expect(verdictOf(429, 1, short, { retryAfterMs: 10 * MAX_RETRY_AFTER_MS })).toEqual({ kind: "retry", delayMs: MAX_RETRY_AFTER_MS });
    expect(verdictOf(429, 3, short, { retryAfterMs: 3000 })).toEqual({ kind: "exhausted" });
  });

  it("gives a delivery sent again by hand one attempt", () => {
    expect(verdictOf(500, 1, schedule, { singleAttempt: true })).toEqual({ kind: "exhausted" });
    expect(verdictOf(200, 9, schedule, { singleAttempt: true })).toEqual({ kind: "delivered" });
  });
});
