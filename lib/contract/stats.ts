import { z } from "zod";
import { EVENT_TYPES } from "./events";

/**
 * GET /stats (docs/contract.md §12.2): counts per event type per time
 * bucket, for the dashboard's charts. Imports only zod.
 */

export const STATS_INTERVALS = ["hour", "day"] as const;
export type StatsInterval = (typeof STATS_INTERVALS)[number];
/** Bounds the response: at most this many buckets per request. */
export const MAX_STATS_BUCKETS = 1000;

const unixSeconds = z
  .string()
  .trim()
  .regex(/^\d+$/, "must be an integer")
  .transform(Number)
  .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
  .meta({ type: "integer", minimum: 0 });

export const statsQuerySchema = z
  .object({
    StartDate: unixSeconds.describe("Unix seconds; rounded down to the start of its bucket"),
    EndDate: unixSeconds.describe("Unix seconds, inclusive"),
    Interval: z.enum(STATS_INTERVALS).default("day").describe("Bucket width (UTC hours or UTC days); default day"),
  })
  .refine((q) => q.StartDate <= q.EndDate, { message: "StartDate is after EndDate", path: ["StartDate"] });
export type StatsQuery = z.infer<typeof statsQuerySchema>;

export const eventCountsSchema = z.object(
  Object.fromEntries(EVENT_TYPES.map((t) => [t, z.number().int().nonnegative()])) as Record<(typeof EVENT_TYPES)[number], z.ZodNumber>,
);
export type EventCounts = z.infer<typeof eventCountsSchema>;

export const statsBucketSchema = z.object({
  Start: z.number().int().describe("Unix seconds of the bucket's start (UTC)"),
  Counts: eventCountsSchema,
});

export const statsResponseSchema = z.object({
  Interval: z.enum(STATS_INTERVALS),
  StartDate: z.number().int().describe("Start of the first bucket"),
  EndDate: z.number().int().describe("The EndDate asked for"),
  Buckets: z.array(statsBucketSchema).describe("Every bucket of the range, oldest first, zeros included"),
  Totals: eventCountsSchema,
});
export type StatsResponse = z.infer<typeof statsResponseSchema>;

export function emptyCounts(): EventCounts {
  return Object.fromEntries(EVENT_TYPES.map((t) => [t, 0])) as EventCounts;
}
