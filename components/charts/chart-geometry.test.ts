import { describe, expect, it } from "vitest";
import { PLOT, axisLabel, bucketLabel, dotsPath, hoverBand, labelledBuckets, linePath, niceTicks, xOf, yOf } from "./chart-geometry";

describe("niceTicks", () => {
  it("runs from 0 to the first nice multiple at or above the maximum", () => {
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(100, 4, true)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(1234)).toEqual([0, 500, 1000, 1500]);
    expect(niceTicks(3_300_000)).toEqual([0, 1_000_000, 2_000_000, 3_000_000, 4_000_000]);
  });

  it("keeps whole steps for counts and allows fractions for rates", () => {
    expect(niceTicks(2)).toEqual([0, 1, 2]);
    expect(niceTicks(0.6, 4, true)).toEqual([0, 0.2, 0.4, 0.6]);
  });

  it("gives 0 to 4 for an empty range, whatever the input", () => {
    for (const max of [0, -5, NaN, Infinity]) expect(niceTicks(max)).toEqual([0, 1, 2, 3, 4]);
  });

  it("always reaches the maximum", () => {
    for (const max of [1, 3, 9, 11, 99, 101, 12_345, 987_654_321]) {
      const ticks = niceTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(6);
    }
  });
});

describe("positions", () => {
  it("spreads buckets edge to edge, one alone in the middle", () => {
    expect([0, 1, 2].map((i) => xOf(i, 3))).toEqual([0, PLOT / 2, PLOT]);
    expect(xOf(0, 1)).toBe(PLOT / 2);
  });

  it("gives each bucket a hover band halfway to its neighbours, inside the plot", () => {
    const bands = [0, 1, 2, 3, 4].map((i) => hoverBand(i, 5));
    expect(bands[0]).toEqual({ x: 0, width: PLOT / 8 });
    expect(bands[2]).toEqual({ x: (PLOT * 3) / 8, width: PLOT / 4 });
    expect(bands[4]).toEqual({ x: (PLOT * 7) / 8, width: PLOT / 8 });
    // Together they cover the plot once, edge to edge.
    expect(bands.reduce((sum, b) => sum + b.width, 0)).toBe(PLOT);
    for (const b of bands) expect(b.x + b.width).toBeLessThanOrEqual(PLOT);
    expect(hoverBand(0, 1)).toEqual({ x: 0, width: PLOT });
  });

  it("puts 0 at the bottom and the top at the top, clamped", () => {
    expect(yOf(0, 10)).toBe(PLOT);
    expect(yOf(10, 10)).toBe(0);
    expect(yOf(5, 10)).toBe(PLOT / 2);
    expect(yOf(-1, 10)).toBe(PLOT);
    expect(yOf(20, 10)).toBe(0);
    expect(yOf(0, 0)).toBe(PLOT);
  });
});

describe("paths", () => {
  it("joins the points that have a value across the buckets without one", () => {
    expect(linePath([0, null, 10], 10)).toBe(`M0 ${PLOT} L${PLOT} 0`);
    expect(linePath([null, undefined], 10)).toBe("");
    expect(linePath([5], 10)).toBe(`M${PLOT / 2} ${PLOT / 2}`);
  });

  it("draws a dot per point with a value", () => {
    expect(dotsPath([0, null, 10], 10)).toBe(`M0 ${PLOT}h0 M${PLOT} 0h0`);
  });
});

describe("labelledBuckets", () => {
  it("labels at most seven buckets, evenly, from the first", () => {
    expect(labelledBuckets(0)).toEqual([]);
    expect(labelledBuckets(5)).toEqual([0, 1, 2, 3, 4]);
    expect(labelledBuckets(24)).toEqual([0, 4, 8, 12, 16, 20]);
    expect(labelledBuckets(30)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(labelledBuckets(720).length).toBeLessThanOrEqual(7);
  });
});

describe("labels", () => {
  const at = (iso: string) => Date.parse(iso) / 1000;
  it("names a bucket in full for the hover and the table", () => {
    expect(bucketLabel(at("2026-11-27T08:00:00Z"), "hour")).toBe("11-27 08:00");
    expect(bucketLabel(at("2026-11-27T00:00:00Z"), "day")).toBe("2026-11-27");
  });

  it("shortens the axis: hours as HH:00, the date where the day changes, days as MM-DD", () => {
    expect(axisLabel(at("2026-11-27T08:00:00Z"), "hour")).toBe("08:00");
    expect(axisLabel(at("2026-11-28T00:00:00Z"), "hour")).toBe("11-28");
    expect(axisLabel(at("2026-11-27T00:00:00Z"), "day")).toBe("11-27");
  });
});
