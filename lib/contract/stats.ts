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

/** GET /stats?By= (extension, docs/adr/0517): counts per tag, recipient domain, provider or sender domain. */
export const STATS_BREAKDOWNS = ["tag", "recipientDomain", "provider", "senderDomain"] as const;
export type StatsBreakdownBy = (typeof STATS_BREAKDOWNS)[number];
/** Bounds a breakdown: its largest values by sent, the rest as one row (Value ""). */
export const MAX_BREAKDOWN_ROWS = 100;

export const statsQuerySchema = z
  .object({
    StartDate: unixSeconds.describe("Unix seconds; rounded down to the start of its bucket"),
    EndDate: unixSeconds.describe("Unix seconds, inclusive"),
    Interval: z.enum(STATS_INTERVALS).default("day").describe("Bucket width (UTC hours or UTC days); default day"),
    By: z
      .enum(STATS_BREAKDOWNS)
      .optional()
      .describe("Extension: adds `Breakdown`, the range's counts per value of this dimension against the previous period of the same length"),
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

const rate = z.number().min(0).nullable();
export const breakdownRatesSchema = z
  .object({ delivered: rate, bounced: rate, complained: rate, opened: rate, clicked: rate })
  .describe("Shares 0..1: delivered and bounced (failed + rejected) of accepted; complained, opened and clicked of delivered; null when the denominator is 0");
export type BreakdownRates = z.infer<typeof breakdownRatesSchema>;

export const breakdownRowSchema = z.object({
  Value: z.string().describe('The tag, domain or provider; "" is every other value (Other)'),
  Counts: eventCountsSchema,
  Rates: breakdownRatesSchema,
  PreviousCounts: eventCountsSchema,
  PreviousRates: breakdownRatesSchema,
});
export type BreakdownRow = z.infer<typeof breakdownRowSchema>;

export const breakdownSchema = z.object({
  By: z.enum(STATS_BREAKDOWNS),
  SummarisedUntil: z.number().int().describe("Unix seconds: the counts are the range's hourly summaries up to here (a few minutes behind now at most)"),
  PreviousStartDate: z.number().int(),
  PreviousEndDate: z.number().int(),
  Rows: z.array(breakdownRowSchema).describe(`Largest accepted count first, at most ${MAX_BREAKDOWN_ROWS} values and one "" row for the rest`),
});
export type Breakdown = z.infer<typeof breakdownSchema>;

export const statsResponseSchema = z.object({
  Interval: z.enum(STATS_INTERVALS),
  StartDate: z.number().int().describe("Start of the first bucket"),
  EndDate: z.number().int().describe("The EndDate asked for"),
  Buckets: z.array(statsBucketSchema).describe("Every bucket of the range, oldest first, zeros included"),
  Totals: eventCountsSchema,
  Breakdown: breakdownSchema.optional().describe("Only with `By` (extension)"),
});
export type StatsResponse = z.infer<typeof statsResponseSchema>;

export function emptyCounts(): EventCounts {
  return Object.fromEntries(EVENT_TYPES.map((t) => [t, 0])) as EventCounts;
}
