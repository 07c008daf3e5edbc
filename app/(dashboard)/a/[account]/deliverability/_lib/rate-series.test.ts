import { describe, expect, it } from "vitest";
import { emptyCounts, type StatsResponse } from "@/lib/contract/stats";
import { formatRate, thresholdLines, toRatePoints, totalRates } from "./rate-series";

const DAY = 86_400;
const stats = (buckets: [number, Partial<ReturnType<typeof emptyCounts>>][]): StatsResponse => {
  const Buckets = buckets.map(([Start, c]) => ({ Start, Counts: { ...emptyCounts(), ...c } }));
  const Totals = emptyCounts();
  for (const b of Buckets) for (const k of Object.keys(Totals) as (keyof typeof Totals)[]) Totals[k] += b.Counts[k];
  return { Interval: "day", StartDate: 0, EndDate: 2 * DAY - 1, Buckets, Totals };
};

describe("toRatePoints", () => {
  it("counts failed and rejected as bounced of accepted, and complaints of delivered, in percent", () => {
    const points = toRatePoints(stats([[0, { accepted: 556, failed: 70, rejected: 6, delivered: 480, complained: 60 }]]));
    expect(points).toEqual([{ start: 0, sent: 556, delivered: 480, bounced: 76, complained: 60, bounceRate: 13.669, complaintRate: 12.5 }]);
  });

  it("keeps a rate as small as the complaint threshold (0.08%) and leaves a day with nothing to divide by empty", () => {
    const points = toRatePoints(stats([[0, { accepted: 2500, delivered: 2500, complained: 2 }], [DAY, {}]]));
    expect(points[0]!.complaintRate).toBe(0.08);
    expect(points[0]!.bounceRate).toBe(0);
    expect(points[1]).toMatchObject({ bounceRate: null, complaintRate: null });
  });
});

describe("totalRates", () => {
  it("gives the range's rates as fractions, null without a denominator", () => {
    expect(totalRates(stats([[0, { accepted: 200, failed: 10, delivered: 190, complained: 1 }]]))).toMatchObject({ bounceRate: 0.05, complaintRate: 1 / 190 });
    expect(totalRates(stats([[0, {}]]))).toMatchObject({ bounceRate: null, complaintRate: null });
  });
});

describe("thresholdLines", () => {
  const thresholds = { WarnBounceRate: 0.025, PauseBounceRate: 0.05, WarnComplaintRate: 0.0004, PauseComplaintRate: 0.0008, MinVolume: 100 };

  it("draws the warning and pause lines of each rate in percent", () => {
    expect(thresholdLines(thresholds, "bounce")).toEqual([
      { value: 2.5, label: "Warning 2.5%", color: "#d97706" },
      { value: 5, label: "Pause 5%", color: "#dc2626" },
    ]);
    expect(thresholdLines(thresholds, "complaint").map((l) => [l.value, l.label])).toEqual([
      [0.04, "Warning 0.04%"],
      [0.08, "Pause 0.08%"],
    ]);
  });

  it("draws nothing when the server has no thresholds", () => {
    expect(thresholdLines(undefined, "bounce")).toEqual([]);
  });

  it("prints a fraction without trailing zeros", () => {
    expect([formatRate(0.003), formatRate(0.1), formatRate(0.00125)]).toEqual(["0.3%", "10%", "0.125%"]);
  });
});
