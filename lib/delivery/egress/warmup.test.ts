import { describe, expect, it } from "vitest";
import { capsOn, DEFAULT_WARMUP, parseWarmupSchedule, UNCAPPED, warmupDay } from "./warmup";

const DAY = 24 * 60 * 60_000;
const t0 = Date.UTC(2026, 11, 2, 15, 0);

describe("the warm-up schedule", () => {
  it("counts UTC days from the day the warm-up began", () => {
    expect(warmupDay(new Date(t0), t0)).toBe(1);
    expect(warmupDay(new Date(t0), Date.UTC(2026, 11, 2, 23, 59))).toBe(1);
    expect(warmupDay(new Date(t0), Date.UTC(2026, 11, 3, 0, 0))).toBe(2);
    expect(warmupDay(new Date(t0), t0 + 29 * DAY)).toBe(30);
    // A clock behind the row: still day 1.
    expect(warmupDay(new Date(t0 + DAY), t0)).toBe(1);
  });

  it("is conservative by default, rises on every step and ends warm", () => {
    expect(capsOn(DEFAULT_WARMUP, 1, "gmail")).toEqual({ daily: 50, hourly: 8 });
    expect(capsOn(DEFAULT_WARMUP, 7, "gmail")).toEqual({ daily: 1_000, hourly: 166 });
    expect(capsOn(DEFAULT_WARMUP, 29, "outlook")).toEqual({ daily: 60_000, hourly: 10_000 });
    expect(capsOn(DEFAULT_WARMUP, 30, "gmail")).toEqual(UNCAPPED);
    let last = 0;
    for (const step of DEFAULT_WARMUP.default) {
      expect(step.daily).toBeGreaterThan(last);
      expect(step.hourly * 6).toBeLessThanOrEqual(step.daily);
      last = step.daily;
    }
  });

  it("takes a provider's own steps, others the default's; a name of Object's prototype is no provider", () => {
    const s = parseWarmupSchedule(JSON.stringify({ warmAfterDay: 5, default: [{ day: 1, daily: 3, hourly: 3 }], providers: { Gmail: [{ day: 1, daily: 1, hourly: 1 }] } }));
    expect(capsOn(s, 1, "gmail")).toEqual({ daily: 1, hourly: 1 });
    expect(capsOn(s, 4, "mx.example.net")).toEqual({ daily: 3, hourly: 3 });
    expect(capsOn(s, 1, "constructor")).toEqual({ daily: 3, hourly: 3 });
    expect(capsOn(s, 5, "gmail")).toEqual(UNCAPPED);
  });

  it("refuses a file that is not a schedule, saying where", () => {
    expect(() => parseWarmupSchedule("{")).toThrow(/not JSON/);
    expect(() => parseWarmupSchedule(JSON.stringify({ warmAfterDay: 5, default: [] }))).toThrow(/default/);
    expect(() => parseWarmupSchedule(JSON.stringify({ warmAfterDay: 5, default: [{ day: 0, daily: 1, hourly: 1 }] }))).toThrow(/default\.0\.day/);
    expect(() => parseWarmupSchedule(JSON.stringify({ warmAfterDay: 5, default: [{ day: 1, daily: -1, hourly: 1 }] }))).toThrow(/daily/);
    expect(() => parseWarmupSchedule(JSON.stringify({ warmAfterDay: 5, default: [{ day: 1, daily: 1, hourly: 1 }], extra: 1 }))).toThrow();
    expect(() => parseWarmupSchedule(" ".repeat(300_000))).toThrow(/at most/);
  });
});
