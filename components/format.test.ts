import { describe, expect, it } from "vitest";
import { describeRetrySchedule, formatCompact, formatDelay } from "./format";

describe("describeRetrySchedule", () => {
  it("says the default webhook schedule (lib/config.ts) as the webhooks page always did", () => {
    expect(describeRetrySchedule([5, 10, 15, 30, 60, 120, 240].map((m) => m * 60_000))).toBe("retried (5 min up to 4 h; 8 attempts in all)");
  });

  it("follows a configured schedule, a single retry and none", () => {
    expect(describeRetrySchedule([30_000, 90 * 60_000])).toBe("retried (30 s up to 90 min; 3 attempts in all)");
    expect(describeRetrySchedule([60_000])).toBe("retried (after 1 min; 2 attempts in all)");
    expect(describeRetrySchedule([])).toBe("not retried (one attempt in all)");
  });

  it("writes delays in the largest whole unit", () => {
    expect(formatDelay(7_200_000)).toBe("2 h");
    expect(formatDelay(150_000)).toBe("150 s");
    expect(formatDelay(1_500)).toBe("2 s");
  });
});

describe("formatCompact", () => {
  it("writes a count in full below a million, compact above", () => {
    expect(formatCompact(999_999)).toBe("999,999");
    expect(formatCompact(38_990_136)).toBe("38.99M");
    expect(formatCompact(1_000_000)).toBe("1M");
    expect(formatCompact(1_500_000_000)).toBe("1.5B");
  });

  it("takes its own threshold (chart axes compact from ten thousand)", () => {
    expect(formatCompact(9_500, 10_000)).toBe("9,500");
    expect(formatCompact(500_000, 10_000)).toBe("500K");
    expect(formatCompact(2.5, 10_000)).toBe("2.5");
  });
});
