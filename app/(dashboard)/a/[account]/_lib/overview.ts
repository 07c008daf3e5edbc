import type { EventCounts, StatsInterval, StatsResponse } from "@/lib/contract/stats";

/**
 * The overview's arithmetic, pure: the range a URL asks for, the KPIs with
 * their change against the previous period, and the chart series. All times
 * are UTC Unix seconds; buckets are UTC hours or days.
 */

export const RANGE_PRESETS = ["24h", "7d", "30d", "custom"] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

export interface OverviewRange {
  preset: RangePreset;
  /** Inclusive bounds, Unix seconds. `start` is aligned to the bucket width. */
  start: number;
  end: number;
  interval: StatsInterval;
  previous: { start: number; end: number };
  /** For the custom form: YYYY-MM-DD (UTC). */
  fromDate: string;
  toDate: string;
}

const HOUR = 3600;
const DAY = 86_400;
/** A day, or an hour of it (what a brush over hourly buckets selects). */
const DATE_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:00)?$/;

/** The bound's start and width: a whole day, or an hour. */
function parseDate(value: string | undefined): { start: number; width: number } | undefined {
  if (!value || !DATE_RE.test(value)) return undefined;
  const isDay = value.length === 10;
  const ms = Date.parse(isDay ? `${value}T00:00:00Z` : `${value}:00Z`);
  return Number.isFinite(ms) ? { start: ms / 1000, width: isDay ? DAY : HOUR } : undefined;
}

export function isoDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

function withPrevious(preset: RangePreset, start: number, end: number, interval: StatsInterval): OverviewRange {
  const span = end - start + 1;
  return {
    preset,
    start,
    end,
    interval,
    previous: { start: start - span, end: start - 1 },
    fromDate: isoDate(start),
    toDate: isoDate(end),
  };
}

/**
 * `range=24h|7d|30d` ends now: 24 h in hourly buckets (the current hour and
 * the 23 before it), 7 d and 30 d in daily buckets (today and the days
 * before). `range=custom&from=YYYY-MM-DD&to=YYYY-MM-DD` covers whole UTC
 * days, hourly up to 2 days, daily beyond (at most 366 days); a bound may be
 * an hour (`YYYY-MM-DDTHH:00`, what the charts' brush sets), `to` inclusive.
 */
export function resolveRange(params: { range?: string; from?: string; to?: string }, nowSeconds: number): OverviewRange {
  const now = Math.floor(nowSeconds);
  const preset: RangePreset = (RANGE_PRESETS as readonly string[]).includes(params.range ?? "") ? (params.range as RangePreset) : "7d";
  if (preset === "custom") {
    let from = parseDate(params.from);
    let to = parseDate(params.to);
    if (from !== undefined && to !== undefined) {
      if (from.start > to.start) [from, to] = [to, from];
      const end = to.start + to.width - 1;
      const start = Math.max(from.start, end + 1 - 366 * DAY);
      const interval = end - start + 1 <= 2 * DAY ? "hour" : "day";
      // A daily range starts on its day (an hour bound of a long range is rounded down).
      return withPrevious("custom", interval === "day" ? start - (start % DAY) : start, end, interval);
    }
    // An incomplete custom range shows the default one.
    return resolveRange({ range: "7d" }, now);
  }
  if (preset === "24h") {
    const start = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
    return withPrevious(preset, start, now, "hour");
  }
  const days = preset === "7d" ? 7 : 30;
  const start = Math.floor(now / DAY) * DAY - (days - 1) * DAY;
  return withPrevious(preset, start, now, "day");
}

export type KpiKey = "delivered" | "opened" | "clicked" | "bounced" | "complained" | "unsubscribed";

export interface Kpi {
  key: KpiKey;
  label: string;
  count: number;
  previousCount: number;
  /** Share of its denominator (0..1), undefined when the denominator is 0. */
  rate?: number;
  previousRate?: number;
  rateOf: "sent" | "delivered";
  /** Relative change of the count (0.25 = +25 %), undefined when the previous count is 0. */
  countChange?: number;
  /** Rate change in percentage points. */
  rateChangePoints?: number;
  /** Whether a rise is good news (for colouring). */
  higherIsBetter: boolean;
}

export function bouncedOf(c: EventCounts): number {
  return c.failed + c.rejected;
}

function ratio(n: number, d: number): number | undefined {
  return d > 0 ? n / d : undefined;
}

export function computeKpis(current: EventCounts, previous: EventCounts): Kpi[] {
  const defs: Array<{ key: KpiKey; label: string; count: (c: EventCounts) => number; rateOf: "sent" | "delivered"; higherIsBetter: boolean }> = [
    { key: "delivered", label: "Delivered", count: (c) => c.delivered, rateOf: "sent", higherIsBetter: true },
    { key: "opened", label: "Opened", count: (c) => c.opened, rateOf: "delivered", higherIsBetter: true },
    { key: "clicked", label: "Clicked", count: (c) => c.clicked, rateOf: "delivered", higherIsBetter: true },
    { key: "bounced", label: "Bounced", count: bouncedOf, rateOf: "sent", higherIsBetter: false },
    { key: "complained", label: "Complained", count: (c) => c.complained, rateOf: "delivered", higherIsBetter: false },
    { key: "unsubscribed", label: "Unsubscribed", count: (c) => c.unsubscribed, rateOf: "delivered", higherIsBetter: false },
  ];
  return defs.map((d) => {
    const count = d.count(current);
    const previousCount = d.count(previous);
    const denom = (c: EventCounts) => (d.rateOf === "sent" ? c.accepted : c.delivered);
    const rate = ratio(count, denom(current));
    const previousRate = ratio(previousCount, denom(previous));
    return {
      key: d.key,
      label: d.label,
      count,
      previousCount,
      rate,
      previousRate,
      rateOf: d.rateOf,
      countChange: previousCount > 0 ? (count - previousCount) / previousCount : undefined,
      rateChangePoints: rate !== undefined && previousRate !== undefined ? (rate - previousRate) * 100 : undefined,
      higherIsBetter: d.higherIsBetter,
    };
  });
}

export interface SeriesPoint {
  start: number;
  delivered: number;
  opened: number;
  bounced: number;
  /** Percentages (0..100) or null when the denominator is 0. */
  deliveredRate: number | null;
  openedRate: number | null;
  bouncedRate: number | null;
}

export function toSeries(stats: StatsResponse): SeriesPoint[] {
  const pct = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 1000) / 10 : null);
  return stats.Buckets.map((b) => ({
    start: b.Start,
    delivered: b.Counts.delivered,
    opened: b.Counts.opened,
    bounced: bouncedOf(b.Counts),
    deliveredRate: pct(b.Counts.delivered, b.Counts.accepted),
    openedRate: pct(b.Counts.opened, b.Counts.delivered),
    bouncedRate: pct(bouncedOf(b.Counts), b.Counts.accepted),
  }));
}
