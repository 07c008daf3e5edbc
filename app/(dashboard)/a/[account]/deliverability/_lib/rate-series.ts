import type { ReputationThresholds } from "@/lib/contract/reputation";
import type { EventCounts, StatsResponse } from "@/lib/contract/stats";

/**
 * The Deliverability page's rate chart data (docs/adr/0519): per day, the
 * bounce rate (failed + rejected of accepted) and the complaint rate
 * (complained of delivered), as the reputation guardrails count them, in
 * percent; and the guardrails' thresholds as lines across the plot.
 */

export interface RatePoint {
  start: number;
  sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  /** Percent, to a thousandth of a point; null on a day with nothing to divide by. */
  bounceRate: number | null;
  complaintRate: number | null;
}

export interface ThresholdLine {
  value: number;
  label: string;
  color: string;
}

export const WARN_COLOR = "#d97706";
export const PAUSE_COLOR = "#dc2626";

/** A share 0..1 as percent, rounded to 0.001 points (0.08% must survive the rounding). */
export const percentOf = (n: number, d: number): number | null => (d > 0 ? Math.round((n / d) * 100_000) / 1000 : null);

const bouncedOf = (c: EventCounts) => c.failed + c.rejected;

export function toRatePoints(stats: StatsResponse): RatePoint[] {
  return stats.Buckets.map((b) => ({
    start: b.Start,
    sent: b.Counts.accepted,
    delivered: b.Counts.delivered,
    bounced: bouncedOf(b.Counts),
    complained: b.Counts.complained,
    bounceRate: percentOf(bouncedOf(b.Counts), b.Counts.accepted),
    complaintRate: percentOf(b.Counts.complained, b.Counts.delivered),
  }));
}

/** The range's totals as rates (fractions), for the readiness verdict and the headline numbers. */
export function totalRates(stats: StatsResponse) {
  const t = stats.Totals;
  return {
    sent: t.accepted,
    delivered: t.delivered,
    bounced: bouncedOf(t),
    complained: t.complained,
    bounceRate: t.accepted > 0 ? bouncedOf(t) / t.accepted : null,
    complaintRate: t.delivered > 0 ? t.complained / t.delivered : null,
  };
}

/** "0.08%", "2.5%", "5%": a fraction as a short percentage, no trailing zeros. */
export function formatRate(fraction: number): string {
  return `${Number((fraction * 100).toFixed(3))}%`;
}

/** The warning and pause lines of one rate; none when the server has no thresholds (no reputation endpoint). */
export function thresholdLines(thresholds: ReputationThresholds | undefined, kind: "bounce" | "complaint"): ThresholdLine[] {
  if (!thresholds) return [];
  const [warn, pause] = kind === "bounce" ? [thresholds.WarnBounceRate, thresholds.PauseBounceRate] : [thresholds.WarnComplaintRate, thresholds.PauseComplaintRate];
  return [
    { value: Math.round(warn * 100_000) / 1000, label: `Warning ${formatRate(warn)}`, color: WARN_COLOR },
    { value: Math.round(pause * 100_000) / 1000, label: `Pause ${formatRate(pause)}`, color: PAUSE_COLOR },
  ];
}
