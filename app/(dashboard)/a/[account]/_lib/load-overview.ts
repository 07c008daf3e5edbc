import "server-only";
import { type ApiClient, fetchStats, fetchTotals, type StatsSource } from "@/lib/dashboard/public-api";
import type { EventCounts } from "@/lib/contract/stats";
import { resolveRange, toSeries, type OverviewRange, type SeriesPoint } from "./overview";

export interface OverviewData {
  range: OverviewRange;
  totals: EventCounts;
  previousTotals: EventCounts;
  series: SeriesPoint[];
  source: StatsSource;
  fetchedAt: number;
}

export interface OverviewParams {
  range?: string;
  from?: string;
  to?: string;
  /** `events` forces the counting fallback (what a server without GET /stats gets). */
  source?: string;
}

export async function loadOverview(client: ApiClient, params: OverviewParams): Promise<OverviewData> {
  const range = resolveRange(params, Date.now() / 1000);
  const forceFallback = params.source === "events";
  const [current, previousTotals] = await Promise.all([
    fetchStats(client, { StartDate: range.start, EndDate: range.end, Interval: range.interval }, { forceFallback }),
    fetchTotals(client, { StartDate: range.previous.start, EndDate: range.previous.end, Interval: range.interval }, { forceFallback }),
  ]);
  return {
    range,
    totals: current.stats.Totals,
    previousTotals,
    series: toSeries(current.stats),
    source: current.source,
    fetchedAt: Date.now(),
  };
}
