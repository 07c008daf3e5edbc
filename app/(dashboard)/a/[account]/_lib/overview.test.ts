import { describe, expect, it } from "vitest";
import { emptyCounts, type StatsResponse } from "@/lib/contract/stats";
import { computeKpis, resolveRange, toSeries } from "./overview";

const NOW = Date.UTC(2026, 10, 22, 11, 30, 15) / 1000; // 2026-11-22 11:30:15 UTC

describe("resolveRange", () => {
  it("24h: 24 hourly buckets ending now, previous 24 h before", () => {
    const r = resolveRange({ range: "24h" }, NOW);
    expect(r.interval).toBe("hour");
    expect(r.start).toBe(Date.UTC(2026, 10, 21, 12) / 1000);
    expect(r.end).toBe(NOW);
    expect(r.previous.end).toBe(r.start - 1);
    expect(r.previous.end - r.previous.start).toBe(r.end - r.start);
  });

  it("7d and 30d: daily buckets from midnight UTC; 7d is the default", () => {
    expect(resolveRange({}, NOW).preset).toBe("7d");
    const r = resolveRange({ range: "30d" }, NOW);
    expect(r.interval).toBe("day");
    expect(r.start).toBe(Date.UTC(2026, 9, 24) / 1000);
  });

  it("custom: whole UTC days, hourly up to two days, swapped bounds fixed", () => {
    const one = resolveRange({ range: "custom", from: "2026-11-20", to: "2026-11-20" }, NOW);
    expect(one.interval).toBe("hour");
    expect(one.end - one.start + 1).toBe(86_400);
    const many = resolveRange({ range: "custom", from: "2026-11-20", to: "2026-11-01" }, NOW);
    expect(many.interval).toBe("day");
    expect(many.fromDate).toBe("2026-11-01");
    expect(many.toDate).toBe("2026-11-20");
    expect(resolveRange({ range: "custom", from: "junk" }, NOW).preset).toBe("7d");
  });
});

describe("computeKpis", () => {
  it("rates against sent or delivered, changes against the previous period", () => {
    const cur = { ...emptyCounts(), accepted: 100, delivered: 90, opened: 45, clicked: 9, failed: 6, rejected: 4, complained: 1 };
    const prev = { ...emptyCounts(), accepted: 50, delivered: 50, opened: 10 };
    const k = Object.fromEntries(computeKpis(cur, prev).map((x) => [x.key, x]));
    expect(k.delivered!.rate).toBeCloseTo(0.9);
    expect(k.opened!.rate).toBeCloseTo(0.5);
    expect(k.bounced!.count).toBe(10);
    expect(k.bounced!.rate).toBeCloseTo(0.1);
    expect(k.delivered!.countChange).toBeCloseTo(0.8);
    expect(k.opened!.rateChangePoints).toBeCloseTo(30);
    expect(k.bounced!.countChange).toBeUndefined();
    expect(k.unsubscribed!.rate).toBe(0);
  });

  it("has no rate when nothing was sent", () => {
    const k = computeKpis(emptyCounts(), emptyCounts());
    expect(k.every((x) => x.rate === undefined)).toBe(true);
  });
});

describe("toSeries", () => {
  it("gives counts and percentage rates per bucket", () => {
    const stats: StatsResponse = {
      Interval: "hour",
      StartDate: 0,
      EndDate: 7199,
      Buckets: [
        { Start: 0, Counts: { ...emptyCounts(), accepted: 4, delivered: 3, opened: 1, failed: 1 } },
        { Start: 3600, Counts: emptyCounts() },
      ],
      Totals: emptyCounts(),
    };
    expect(toSeries(stats)).toEqual([
      { start: 0, delivered: 3, opened: 1, bounced: 1, deliveredRate: 75, openedRate: 33.3, bouncedRate: 25 },
      { start: 3600, delivered: 0, opened: 0, bounced: 0, deliveredRate: null, openedRate: null, bouncedRate: null },
    ]);
  });
});
