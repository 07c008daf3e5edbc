import { EVENT_TYPES } from "../../contract/events";
import { emptyCounts, type StatsInterval, type StatsResponse } from "../../contract/stats";
import { selectStatsCounts } from "../../storage/event-count-rows";
import type { EventReads } from "./event-counts";

/**
 * GET /stats (docs/contract.md §12.2): counts per event type per UTC hour
 * or day, every bucket of the range present (zeros included), oldest first.
 */
export const BUCKET_SECONDS: Record<StatsInterval, number> = { hour: 3600, day: 86_400 };

/** How many buckets the range spans (without building them). */
export function bucketCount(startDate: number, endDate: number, interval: StatsInterval): number {
  const size = BUCKET_SECONDS[interval];
  return Math.floor(endDate / size) - Math.floor(startDate / size) + 1;
}

export function bucketStarts(startDate: number, endDate: number, interval: StatsInterval): number[] {
  const size = BUCKET_SECONDS[interval];
  const out: number[] = [];
  for (let t = startDate - (startDate % size); t <= endDate; t += size) out.push(t);
  return out;
}

export async function eventStats(
  { database, rollups }: EventReads,
  accountId: string,
  q: { startDate: number; endDate: number; interval: StatsInterval },
  onError: (err: unknown) => void = () => {},
): Promise<StatsResponse> {
  const size = BUCKET_SECONDS[q.interval];
  const starts = bucketStarts(q.startDate, q.endDate, q.interval);
  const from = starts[0] ?? q.startDate;
  // Hour summaries fall into whole buckets (hours divide days), the rest is counted from the rows; the
  // summary state is read in the same statement as the counts (lib/storage/event-count-rows.ts).
  const { ru, oldest, counts: rows } = await selectStatsCounts(database, { accountId, size, from, to: q.endDate, types: EVENT_TYPES });
  rollups.schedule(accountId, { rolledUntil: ru, oldest }, onError);
  const buckets = new Map(starts.map((s) => [s, emptyCounts()]));
  const totals = emptyCounts();
  for (const r of rows) {
    const counts = buckets.get(r.bucket);
    if (!counts || !EVENT_TYPES.includes(r.type)) continue;
    counts[r.type] += r.n;
    totals[r.type] += r.n;
  }
  return {
    Interval: q.interval,
    StartDate: from,
    EndDate: q.endDate,
    Buckets: starts.map((s) => ({ Start: s, Counts: buckets.get(s)! })),
    Totals: totals,
  };
}
