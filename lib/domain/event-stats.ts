import { EVENT_TYPES, type EventType } from "../contract/events";
import { emptyCounts, type StatsInterval, type StatsResponse } from "../contract/stats";
import type { Database } from "../storage/database";

/**
 * GET /stats (CONTRACT.md "Extensions"): counts per event type per UTC hour
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
  database: Database,
  accountId: string,
  q: { startDate: number; endDate: number; interval: StatsInterval },
): Promise<StatsResponse> {
  const size = BUCKET_SECONDS[q.interval];
  const starts = bucketStarts(q.startDate, q.endDate, q.interval);
  const from = starts[0] ?? q.startDate;
  const { rows } = await database.pool.query<{ bucket: number; type: EventType; n: number }>(
    `SELECT logged_at - logged_at % $2 AS bucket, type, count(*)::int AS n
     FROM events WHERE account_id = $1 AND logged_at >= $3 AND logged_at <= $4
     GROUP BY 1, 2`,
    [accountId, size, from, q.endDate],
  );
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
