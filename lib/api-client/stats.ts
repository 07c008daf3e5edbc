import { EVENT_TYPES, type EventType } from "../contract/events";
import { emptyCounts, type EventCounts, type StatsInterval, type StatsResponse } from "../contract/stats";
import type { ApiClient, StatsParams } from "./client";

/**
 * Counts per event type and time bucket: GET /stats when the server has it,
 * else the fallback of docs/contract.md §12.2: one GET /events per type and
 * bucket with RetrieveCount=1, reading TotalRecords, with bounded concurrency.
 * Both give the same StatsResponse.
 */

export const INTERVAL_SECONDS: Record<StatsInterval, number> = { hour: 3600, day: 86_400 };

export type StatsSource = "stats" | "events";

/** Bucket starts (Unix seconds, UTC-aligned) covering [start, end]; the first is `start` rounded down. */
export function bucketStarts(start: number, end: number, interval: StatsInterval): number[] {
  const width = INTERVAL_SECONDS[interval];
  const out: number[] = [];
  for (let t = Math.floor(start / width) * width; t <= end; t += width) out.push(t);
  return out;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  });
  await Promise.all(runners);
  return results;
}

export async function countStatsViaEvents(
  client: ApiClient,
  params: StatsParams,
  options: { concurrency?: number; types?: readonly EventType[] } = {},
): Promise<StatsResponse> {
  const width = INTERVAL_SECONDS[params.Interval];
  const starts = bucketStarts(params.StartDate, params.EndDate, params.Interval);
  const types = options.types ?? EVENT_TYPES;
  const jobs = starts.flatMap((start) => types.map((type) => ({ start, type })));
  const counts = await mapLimit(jobs, options.concurrency ?? 6, async ({ start, type }) => {
    const res = await client.listEvents({
      StartDate: start,
      EndDate: Math.min(start + width - 1, params.EndDate),
      Event: type,
      RetrieveCount: 1,
    });
    return res.TotalRecords;
  });
  const buckets = starts.map((start) => ({ Start: start, Counts: emptyCounts() }));
  const totals = emptyCounts();
  jobs.forEach(({ start, type }, i) => {
    const bucket = buckets[(start - starts[0]!) / width]!;
    bucket.Counts[type] = counts[i]!;
    totals[type] += counts[i]!;
  });
  return { Interval: params.Interval, StartDate: starts[0] ?? params.StartDate, EndDate: params.EndDate, Buckets: buckets, Totals: totals };
}

/** GET /stats, or the counting fallback when the server has no stats endpoint (or `forceFallback`). */
export async function fetchStats(
  client: ApiClient,
  params: StatsParams,
  options: { forceFallback?: boolean; concurrency?: number } = {},
): Promise<{ stats: StatsResponse; source: StatsSource }> {
  if (!options.forceFallback) {
    const stats = await client.getStats(params);
    if (stats) return { stats, source: "stats" };
  }
  return { stats: await countStatsViaEvents(client, params, { concurrency: options.concurrency }), source: "events" };
}
/** Totals of a range (no buckets): GET /stats, else one counting request per type. */
export async function fetchTotals(
  client: ApiClient,
  range: { StartDate: number; EndDate: number; Interval: StatsInterval },
  options: { forceFallback?: boolean } = {},
): Promise<EventCounts> {
  if (!options.forceFallback) {
    const stats = await client.getStats(range);
    if (stats) return stats.Totals;
  }
  const counts = await mapLimit(EVENT_TYPES, EVENT_TYPES.length, async (type) => {
    const res = await client.listEvents({ StartDate: range.StartDate, EndDate: range.EndDate, Event: type, RetrieveCount: 1 });
    return [type, res.TotalRecords] as const;
  });
  const totals = emptyCounts();
  for (const [type, n] of counts) totals[type] = n;
  return totals;
}
