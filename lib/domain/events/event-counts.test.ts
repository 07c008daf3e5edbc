import { describe, expect, it } from "vitest";
import { rollupTarget, summarisedSpan } from "./event-counts";

const H = 3600;

describe("summarisedSpan", () => {
  const view = { rolledUntil: 100 * H, oldest: 10 * H + 5 };
  it("uses whole hours that are summarised, from the oldest event's hour on", () => {
    expect(summarisedSpan(view, 0, 1000 * H)).toEqual({ a: 10 * H, b: 100 * H });
    expect(summarisedSpan(view, 20 * H + 1, 50 * H - 1)).toEqual({ a: 21 * H, b: 50 * H });
    expect(summarisedSpan(view, 20 * H + 1, 50 * H - 2)).toEqual({ a: 21 * H, b: 49 * H });
    expect(summarisedSpan(view, 20 * H, 50 * H - 1)).toEqual({ a: 20 * H, b: 50 * H });
    expect(summarisedSpan(view, 20 * H, 50 * H)).toEqual({ a: 20 * H, b: 50 * H });
  });
  it("ends at rolledUntil when the summaries end inside an hour", () => {
    const partial = { rolledUntil: 100 * H + 600, oldest: 10 * H + 5 };
    expect(summarisedSpan(partial, 0, 1000 * H)).toEqual({ a: 10 * H, b: 100 * H + 600 });
    // A range that ends before rolledUntil uses whole hours only.
    expect(summarisedSpan(partial, 0, 100 * H + 300)).toEqual({ a: 10 * H, b: 100 * H });
  });
  it("is empty when no whole summarised hour fits", () => {
    expect(summarisedSpan(view, 20 * H + 1, 21 * H + 5)).toEqual({ a: 21 * H + 6, b: 21 * H + 6 });
    expect(summarisedSpan({ rolledUntil: 0, oldest: 5 }, 0, 1000 * H)).toEqual({ a: 1000 * H + 1, b: 1000 * H + 1 });
    expect(summarisedSpan({ rolledUntil: 10 * H + 600, oldest: 10 * H + 5 }, 0, 1000 * H)).toEqual({ a: 10 * H, b: 10 * H + 600 });
    expect(summarisedSpan({ rolledUntil: 100 * H, oldest: null }, 0, 10)).toEqual({ a: 11, b: 11 });
  });
});

describe("rollupTarget", () => {
  it("is a minute boundary at least five minutes back", () => {
    expect(rollupTarget(10 * H)).toBe(10 * H - 300);
    expect(rollupTarget(10 * H + 59)).toBe(10 * H - 300);
    expect(rollupTarget(10 * H + 60)).toBe(10 * H - 240);
    expect(rollupTarget(10 * H + 299)).toBe(10 * H - 60);
  });
});

describe("summarisedSpan and retention", () => {
  it("never uses summaries of hours before the retention floor", () => {
    const view = { rolledUntil: 100 * H, oldest: 10 * H, retainedFrom: 31 * H };
    expect(summarisedSpan(view, 0, 1000 * H)).toEqual({ a: 31 * H, b: 100 * H });
  });
  it("starts at the floor, an hour boundary, when expired rows still wait for their partition's drop", () => {
    // The oldest row is days before the floor: no hour of rows is counted at the edge.
    const view = { rolledUntil: 100 * H + 600, oldest: 2 * H + 17, retainedFrom: 40 * H };
    expect(summarisedSpan(view, 0, 1000 * H)).toEqual({ a: 40 * H, b: 100 * H + 600 });
  });
});
