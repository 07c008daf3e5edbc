import type { StatsInterval } from "@/lib/contract/stats";

/**
 * Where the charts lead, pure: a bucket's click opens the event explorer on
 * that bucket (its `from`/`to`, app/(dashboard)/a/[account]/events/_lib/filters.ts),
 * a brush over buckets makes them the page's range (`range=custom`, resolveRange).
 */

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The explorer's URL for one bucket: a day as `from=to=YYYY-MM-DD`, an hour as its first and last minute. */
export function explorerHrefForBucket(base: string, start: number, interval: StatsInterval): string {
  const q = new URLSearchParams();
  if (interval === "day") {
    q.set("from", iso(start).slice(0, 10));
    q.set("to", iso(start).slice(0, 10));
  } else {
    q.set("from", iso(start).slice(0, 16));
    q.set("to", iso(start + 3540).slice(0, 16));
  }
  return `${base}/events?${q.toString()}`;
}

/** The overview's URL for the buckets from `first` to `last` (their starts, inclusive). */
export function rangeHrefForBuckets(base: string, first: number, last: number, interval: StatsInterval): string {
  const bound = (t: number) => (interval === "day" ? iso(t).slice(0, 10) : `${iso(t).slice(0, 13)}:00`);
  const [a, b] = first <= last ? [first, last] : [last, first];
  const q = new URLSearchParams({ range: "custom", from: bound(a), to: bound(b) });
  return `${base}?${q.toString()}`;
}

/** The overview's URL with the same range and another breakdown (`by`). */
export function overviewHrefWith(base: string, params: Record<string, string | undefined>, patch: Record<string, string>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...params, ...patch })) if (v) q.set(k, v);
  return `${base}?${q.toString()}`;
}
