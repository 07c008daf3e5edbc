import { describe, expect, it } from "vitest";
import { rollupTarget, summarisedSpan } from "./event-counts";

const H = 3600;

describe("summarisedSpan", () => {
  const view = { rolledUntil: 100 * H, oldest: 10 * H + 5 };
  it("uses whole hours that are summarised and after the oldest event's hour", () => {
    expect(summarisedSpan(view, 0, 1000 * H)).toEqual({ a: 11 * H, b: 100 * H });
    expect(summarisedSpan(view, 20 * H + 1, 50 * H - 1)).toEqual({ a: 21 * H, b: 50 * H });
    expect(summarisedSpan(view, 20 * H + 1, 50 * H - 2)).toEqual({ a: 21 * H, b: 49 * H });
    expect(summarisedSpan(view, 20 * H, 50 * H - 1)).toEqual({ a: 20 * H, b: 50 * H });
    expect(summarisedSpan(view, 20 * H, 50 * H)).toEqual({ a: 20 * H, b: 50 * H });
  });
  it("is empty when no whole summarised hour fits", () => {
    expect(summarisedSpan(view, 20 * H + 1, 21 * H + 5)).toEqual({ a: 21 * H + 6, b: 21 * H + 6 });
    expect(summarisedSpan({ rolledUntil: 0, oldest: 5 }, 0, 1000 * H)).toEqual({ a: 1000 * H + 1, b: 1000 * H + 1 });
    expect(summarisedSpan({ rolledUntil: 100 * H, oldest: null }, 0, 10)).toEqual({ a: 11, b: 11 });
  });
});

describe("rollupTarget", () => {
  it("is an hour boundary at least two hours back", () => {
    expect(rollupTarget(10 * H)).toBe(8 * H);
    expect(rollupTarget(10 * H + 59)).toBe(8 * H);
    expect(rollupTarget(10 * H - 1)).toBe(7 * H);
  });
});

describe("summarisedSpan and retention", () => {
  it("never uses summaries of hours before the retention period", () => {
    const view = { rolledUntil: 100 * H, oldest: 10 * H, retainedFrom: 30 * H + 1 };
    expect(summarisedSpan(view, 0, 1000 * H)).toEqual({ a: 31 * H, b: 100 * H });
  });
});
