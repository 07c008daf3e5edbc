import { describe, expect, it } from "vitest";
import { UNTRIED_RETRY_MIN_MS, untriedRetryAt, untriedRetryDelayMs, wasUntried } from "./untried-retry";

const policy = { scheduleMs: [60_000, 300_000], maxAgeMs: 3_600_000 };
const acceptedAt = new Date("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(acceptedAt.getTime() + ms);

describe("the retry of a copy that was not tried", () => {
  it("knows the pool's codes of a copy not tried or given up, and nothing else", () => {
    for (const code of ["ESLOTSHARE", "ESLOTWAIT", "ESKIPPED", "EGIVENUP"]) expect(wasUntried(code)).toBe(true);
    for (const code of ["ETIMEDOUT", "ECONNECTION", "ECONNREFUSED", undefined]) expect(wasUntried(code)).toBe(false);
  });

  it("comes within seconds for a young message, a tenth of its age later for an older one, never later than the schedule", () => {
    expect(untriedRetryDelayMs(0, 60_000)).toBe(UNTRIED_RETRY_MIN_MS);
    expect(untriedRetryDelayMs(5_000, 60_000)).toBe(2_000);
    expect(untriedRetryDelayMs(100_000, 60_000)).toBe(10_000);
    expect(untriedRetryDelayMs(3_000_000, 60_000)).toBe(60_000);
    expect(untriedRetryDelayMs(3_000_000, 300_000)).toBe(300_000);
  });

  it("is capped by the schedule's wait after the attempts already spent, and by the message's maximum age", () => {
    expect(untriedRetryAt(policy, { failedAttempts: 0, acceptedAt, now: at(3_000) })).toEqual(at(5_000));
    // One attempt spent: the schedule's next wait is 5 minutes, so a tenth of 40 minutes stands.
    expect(untriedRetryAt(policy, { failedAttempts: 1, acceptedAt, now: at(2_400_000) })).toEqual(at(2_640_000));
    expect(untriedRetryAt(policy, { failedAttempts: 0, acceptedAt, now: at(2_400_000) })).toEqual(at(2_460_000));
    expect(untriedRetryAt(policy, { failedAttempts: 0, acceptedAt, now: at(3_599_000) })).toBeUndefined();
  });
});
