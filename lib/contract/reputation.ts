import { z } from "zod";

/**
 * GET /api/v1/reputation (extension, docs/contract.md §17):
 * the account's reputation guardrails — its bounce and complaint rates over a
 * rolling day and week, the thresholds that warn and pause, and whether
 * sending is paused. Read-only, any full key of the account. Imports only zod.
 */

export const REPUTATION_STATUSES = ["ok", "warning", "paused"] as const;
export type ReputationStatus = (typeof REPUTATION_STATUSES)[number];

export const REPUTATION_WINDOWS = ["day", "week"] as const;
export type ReputationWindowName = (typeof REPUTATION_WINDOWS)[number];

const count = z.number().int().min(0);
const rate = z.number().min(0).max(1);

export const reputationWindowSchema = z.object({
  Sent: count.describe("Recipients accepted for delivery in the window (the bounce rate's denominator)"),
  Delivered: count.describe("Recipients delivered in the window (the complaint rate's denominator)"),
  Bounced: count.describe("Recipients that bounced (failed or rejected) in the window"),
  Complained: count.describe("Spam complaints recorded in the window"),
  BounceRate: rate.describe("Bounced / Sent, 0 when Sent is 0"),
  ComplaintRate: rate.describe("Complained / Delivered, 0 when Delivered is 0"),
});
export type ReputationWindow = z.infer<typeof reputationWindowSchema>;

export const reputationThresholdsSchema = z.object({
  WarnBounceRate: rate,
  PauseBounceRate: rate,
  WarnComplaintRate: rate,
  PauseComplaintRate: rate,
  MinVolume: count.describe("Sent recipients a window needs before its rates count"),
});
export type ReputationThresholds = z.infer<typeof reputationThresholdsSchema>;

export const reputationResponseSchema = z.object({
  Status: z.enum(REPUTATION_STATUSES),
  PausedAt: z.number().int().nullable().describe("Unix seconds the account's sending was paused; null when not paused"),
  PausedReason: z.string().nullable().describe("Why sending is paused; null when not paused"),
  Windows: z.object({ day: reputationWindowSchema, week: reputationWindowSchema }),
  Thresholds: reputationThresholdsSchema,
});
export type ReputationResponse = z.infer<typeof reputationResponseSchema>;
