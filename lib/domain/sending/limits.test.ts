import { describe, expect, it } from "vitest";
import { accountDailyCeiling, activeWindows, hasLimits, rateLimitHeaders, refusingWindow, secondsToReset, tightestWindow, windowEnd, windowStart } from "./limits";

// 2026-01-02T03:04:05Z
const T = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000;

describe("fixed UTC windows", () => {
  it("starts windows on UTC minute, hour and day boundaries", () => {
    expect(windowStart("minute", T)).toBe(Date.UTC(2026, 0, 2, 3, 4, 0) / 1000);
    expect(windowStart("hour", T)).toBe(Date.UTC(2026, 0, 2, 3, 0, 0) / 1000);
    expect(windowStart("day", T)).toBe(Date.UTC(2026, 0, 2) / 1000);
    expect(windowEnd("day", T)).toBe(Date.UTC(2026, 0, 3) / 1000);
  });
  it("counts Retry-After to the end of the window, at least 1", () => {
    expect(secondsToReset("minute", T)).toBe(55);
    expect(secondsToReset("hour", T)).toBe(3600 - 245);
    expect(secondsToReset("day", T)).toBe(86_400 - 3 * 3600 - 245);
    expect(secondsToReset("minute", windowStart("minute", T))).toBe(60);
    expect(secondsToReset("minute", windowEnd("minute", T) - 1)).toBe(1);
  });
  it("a boundary second belongs to the next window", () => {
    const boundary = Date.UTC(2026, 0, 2, 3, 5, 0) / 1000;
    expect(windowStart("minute", boundary)).toBe(boundary);
    expect(windowStart("minute", boundary - 1)).toBe(boundary - 60);
  });
});

describe("hasLimits", () => {
  it("is false only when every window is unlimited", () => {
    expect(hasLimits({ perMinute: null, perHour: null, perDay: null })).toBe(false);
    expect(hasLimits({ perMinute: null, perHour: null, perDay: 5 })).toBe(true);
    expect(hasLimits({ perMinute: 10, perHour: null, perDay: null })).toBe(true);
  });
});

describe("activeWindows", () => {
  it("skips unlimited windows", () => {
    expect(activeWindows({ perMinute: null, perHour: null, perDay: null }, T)).toEqual([]);
    expect(activeWindows({ perMinute: 10, perHour: null, perDay: 50 }, T).map((w) => [w.kind, w.limit])).toEqual([
      ["minute", 10],
      ["day", 50],
    ]);
  });
});

describe("tightest window and headers", () => {
  it("reports the window with the fewest remaining", () => {
    const u = [
      { kind: "minute" as const, limit: 10, used: 2 },
      { kind: "hour" as const, limit: 25, used: 20 },
      { kind: "day" as const, limit: 50, used: 20 },
    ];
    expect(tightestWindow(u)?.kind).toBe("hour");
    expect(rateLimitHeaders(u, T)).toEqual({
      "X-RateLimit-Limit": "25",
      "X-RateLimit-Remaining": "5",
      "X-RateLimit-Reset": String(windowEnd("hour", T)),
    });
  });
  it("prefers the shorter window on a tie and never goes below zero", () => {
    const u = [
      { kind: "minute" as const, limit: 10, used: 12 },
      { kind: "day" as const, limit: 50, used: 50 },
    ];
    expect(tightestWindow(u)?.kind).toBe("minute");
    expect(rateLimitHeaders(u, T)?.["X-RateLimit-Remaining"]).toBe("0");
  });
  it("has no headers without limits", () => {
    expect(rateLimitHeaders([], T)).toBeUndefined();
  });
});

describe("refusingWindow", () => {
  it("maps the day window to 17 and the others to 429, longest first", () => {
    expect(refusingWindow(["minute"])).toEqual({ kind: "minute", code: 429 });
    expect(refusingWindow(["minute", "hour"])).toEqual({ kind: "hour", code: 429 });
    expect(refusingWindow(["minute", "day"])).toEqual({ kind: "day", code: 17 });
    expect(refusingWindow([])).toBeUndefined();
  });
});

describe("accountDailyCeiling (docs/contract.md §6.5)", () => {
  it("is the account's own value, else the instance's; 0 is none", () => {
    expect(accountDailyCeiling(null, 0)).toBeNull();
    expect(accountDailyCeiling(undefined, 1000)).toBe(1000);
    expect(accountDailyCeiling(null, 1000)).toBe(1000);
    expect(accountDailyCeiling(50, 1000)).toBe(50);
    expect(accountDailyCeiling(50, 0)).toBe(50);
    expect(accountDailyCeiling(0, 1000)).toBeNull();
  });
});
