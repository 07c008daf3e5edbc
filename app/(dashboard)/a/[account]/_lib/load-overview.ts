import "server-only";
import { type ApiClient, fetchStats, fetchTotals, type StatsSource } from "@/lib/dashboard/public-api";
import type { Breakdown, EventCounts, StatsBreakdownBy } from "@/lib/contract/stats";
import { parseBreakdownBy } from "./overview-breakdown";
import { resolveRange, toSeries, type OverviewRange, type SeriesPoint } from "./overview";

export interface OverviewData {
  range: OverviewRange;
  totals: EventCounts;
  previousTotals: EventCounts;
  series: SeriesPoint[];
  /** The breakdown the URL asks for (`by`); undefined when the counts came from the fallback (no GET /stats). */
  breakdown?: Breakdown;
  by: StatsBreakdownBy;
  source: StatsSource;
  fetchedAt: number;
}

export interface OverviewParams {
  range?: string;
  from?: string;
  to?: string;
  /** `events` forces the counting fallback (what a server without GET /stats gets). */
  source?: string;
  /** The breakdown table's dimension (tag, provider, recipientDomain, senderDomain). */
  by?: string;
}

export async function loadOverview(client: ApiClient, params: OverviewParams): Promise<OverviewData> {
  const range = resolveRange(params, Date.now() / 1000);
  const forceFallback = params.source === "events";
  const by = parseBreakdownBy(params.by);
  const [current, previousTotals] = await Promise.all([
    fetchStats(client, { StartDate: range.start, EndDate: range.end, Interval: range.interval, By: by }, { forceFallback }),
    fetchTotals(client, { StartDate: range.previous.start, EndDate: range.previous.end, Interval: range.interval }, { forceFallback }),
  ]);
  return {
    range,
    totals: current.stats.Totals,
    previousTotals,
    series: toSeries(current.stats),
    breakdown: current.stats.Breakdown,
    by,
    source: current.source,
    fetchedAt: Date.now(),
  };
}
