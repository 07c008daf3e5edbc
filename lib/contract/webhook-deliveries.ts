import { z } from "zod";
import { integerString, MAX_RETRIEVE_COUNT } from "./events";

/**
 * Webhook deliveries, retry, replay and re-enabling (docs/contract.md §16).
 * A delivery is one notification Mailroom made, or will make, for one
 * webhook. Imports only zod.
 */

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DEFAULT_DELIVERIES_COUNT = 20;
/** Deliveries one replay queues at most; call again for more. */
export const MAX_REPLAY = 10_000;
/** Deliveries an account's retries and replays queue at most in a UTC hour; past it they answer 429 (§16.4). */
export const RESENDS_PER_HOUR = 10_000;

const isoMillis = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const dateRange = <T extends { StartDate?: number; EndDate?: number }>(q: T) => q.StartDate === undefined || q.EndDate === undefined || q.StartDate <= q.EndDate;

export const deliveriesQuerySchema = z
  .object({
    Status: z.enum(DELIVERY_STATUSES).optional().describe("pending (waiting, in flight, or kept while the webhook is disabled), succeeded or failed"),
    StartDate: integerString(0).optional().describe("Unix seconds, inclusive lower bound on CreatedAt"),
    EndDate: integerString(0).optional().describe("Unix seconds, inclusive upper bound on CreatedAt"),
    StartFrom: integerString(0).optional().meta({ default: 0 }).describe("Offset, default 0"),
    RetrieveCount: integerString(1, MAX_RETRIEVE_COUNT)
      .optional()
      .meta({ default: DEFAULT_DELIVERIES_COUNT })
      .describe(`1–${MAX_RETRIEVE_COUNT}, default ${DEFAULT_DELIVERIES_COUNT}`),
  })
  .refine(dateRange, { message: "StartDate is after EndDate", path: ["StartDate"] });
export type DeliveriesQuery = z.infer<typeof deliveriesQuerySchema>;

export const deliveryRecordSchema = z.object({
  DeliveryID: z.string().regex(/^\d+$/).describe("The notification's id; its `webhook-id` header is `msg_mailroom_<DeliveryID>`"),
  Event: z.string().describe("EventData.Event of the notification (delivered, bounced, ...)"),
  MessageID: z.string(),
  Status: z.enum(DELIVERY_STATUSES),
  Attempts: z.number().int().nonnegative(),
  LastResponseCode: z.number().int().nonnegative().describe("HTTP status of the latest attempt; 0 when none was made or no answer came"),
  NextAttemptAt: isoMillis.nullable().describe("When a pending delivery is due; null when it is not pending or is kept while its webhook is disabled"),
  CreatedAt: isoMillis,
});
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>;

export const deliveriesResponseSchema = z.object({
  TotalRecords: z.number().int().nonnegative(),
  Deliveries: z.array(deliveryRecordSchema),
});
export type DeliveriesResponse = z.infer<typeof deliveriesResponseSchema>;

export const deliveryAttemptSchema = z.object({
  AttemptedAt: isoMillis,
  DurationMs: z.number().int().nonnegative(),
  ResponseCode: z.number().int().nonnegative().describe("0 when no HTTP answer came"),
  ResponseBody: z.string().describe("The first 4 KB of the answer"),
  Error: z.string().describe("Why there was no answer, or why it was not retried; empty otherwise"),
});
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

export const deliveryDetailSchema = deliveryRecordSchema.extend({
  WebhookID: z.string().regex(/^\d+$/),
  AttemptLog: z.array(deliveryAttemptSchema).describe("Every attempt, oldest first"),
});
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

export const deliveryIdParamSchema = z
  .string()
  .regex(/^0*[1-9]\d{0,17}$/)
  .meta({ type: "integer", minimum: 1 });

export const replayRequestSchema = z
  .object({
    Status: z.enum(["failed", "succeeded"]).default("failed").describe("Which deliveries to send again; default failed"),
    StartDate: z.number().int().nonnegative().optional().describe("Unix seconds, inclusive lower bound on CreatedAt"),
    EndDate: z.number().int().nonnegative().optional().describe("Unix seconds, inclusive upper bound on CreatedAt"),
  })
  .refine(dateRange, { message: "StartDate is after EndDate", path: ["StartDate"] });
export type ReplayRequest = z.infer<typeof replayRequestSchema>;

/** POST …/retry, …/replay and …/enable: how many deliveries were queued (0 when each was already pending). */
export const queuedResponseSchema = z.object({ Queued: z.number().int().nonnegative() });
export type QueuedResponse = z.infer<typeof queuedResponseSchema>;
