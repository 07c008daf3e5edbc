import { describe, expect, it } from "vitest";
import { restartDelayMs } from "./postmaster";

describe("restartDelayMs", () => {
  it("starts at 1 s and doubles to 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((a) => restartDelayMs(a))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("never returns less than the first delay nor more than the cap, whatever the attempt", () => {
    for (const attempt of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1e9]) {
      const delay = restartDelayMs(attempt);
      expect(delay).toBeGreaterThanOrEqual(1000);
      expect(delay).toBeLessThanOrEqual(30_000);
    }
    expect(restartDelayMs(3, 50, 300)).toBe(300);
  });
});
