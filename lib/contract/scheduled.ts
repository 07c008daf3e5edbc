import { z } from "zod";
import { apiErrorSchema, type ApiErrorItem } from "./errors";

/**
 * Scheduled sends and batches (docs/contract.md §15): the `SendAt` field of
 * POST /email and of each batch item, the schedule of a message (GET, PATCH,
 * cancel) and the answer of POST /email/batch. Imports only zod and lib/contract.
 */

export const SEND_AT_FIELD = "SendAt";
/** A message may be scheduled at most this far ahead (§15.1). */
export const MAX_SCHEDULE_AHEAD_SECONDS = 30 * 24 * 3600;
/** The longest ISO 8601 time read (`2026-01-01T00:00:00.000000000+00:00` is 35 characters). */
const MAX_SEND_AT_TEXT = 64;

const isoTime = z.iso.datetime({ offset: true });

/**
 * `SendAt` against `now` (Unix seconds): absent or null → send now; Unix
 * seconds (a finite number ≥ 0, fractions dropped) or an ISO 8601 date-time
 * with `Z` or an offset (a time without one is ambiguous: refused); a time
 * in the past → now (`at` undefined); more than 30 days ahead → refused.
 */
export function parseSendAt(value: unknown, now: number): { ok: true; at?: number } | { ok: false } {
  if (value === undefined || value === null) return { ok: true };
  let at: number;
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) return { ok: false };
    at = Math.floor(value);
  } else if (typeof value === "string") {
    if (value.length > MAX_SEND_AT_TEXT || !isoTime.safeParse(value).success) return { ok: false };
    const ms = Date.parse(value);
    if (!Number.isFinite(ms)) return { ok: false };
    at = Math.floor(ms / 1000);
  } else return { ok: false };
  if (at > now + MAX_SCHEDULE_AHEAD_SECONDS) return { ok: false };
  return at > now ? { ok: true, at } : { ok: true };
}

export const SCHEDULE_STATUSES = ["scheduled", "sending", "sent", "cancelled"] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

export const sendAtSchema = z
  .union([z.number(), z.string()])
  .describe("Unix seconds, or an ISO 8601 date-time with `Z` or an offset; at most 30 days ahead; a time in the past sends now");

export const messageScheduleSchema = z.object({
  MessageID: z.uuid(),
  Status: z
    .enum(SCHEDULE_STATUSES)
    .describe("`scheduled` until its time; `sending` once delivery started; `sent` when every recipient has its final event; `cancelled`"),
  SendAt: z.number().int().describe("Unix seconds: when the message is (or was) to be sent; its acceptance time when it had no SendAt"),
});
export type MessageSchedule = z.infer<typeof messageScheduleSchema>;

export const rescheduleRequestSchema = z.object({ SendAt: sendAtSchema });
export type RescheduleRequest = z.infer<typeof rescheduleRequestSchema>;

export const scheduledListSchema = z.object({
  Messages: z.array(
    z.object({
      MessageID: z.uuid(),
      SendAt: z.number().int(),
      Subject: z.string(),
      Recipients: z.array(z.string()),
      AcceptedAt: z.number().int(),
    }),
  ),
});
export type ScheduledList = z.infer<typeof scheduledListSchema>;

/** PATCH or cancel of a message whose delivery has started (or that was cancelled): HTTP 409. */
export const ALREADY_STARTED: ApiErrorItem = { Code: 409, Message: "Delivery of this message has already started or it was cancelled" };

/** Most items in one POST /email/batch (§15.4). */
export const MAX_BATCH_ITEMS = 500;
/** The whole batch's body, refused before it is all read (§15.4). */
export const MAX_BATCH_BODY_BYTES = 50 * 1024 * 1024;

export const batchItemResultSchema = z.union([
  z.object({ MessageID: z.uuid() }),
  z.object({ Errors: z.array(apiErrorSchema).min(1) }),
]);
export const batchResponseSchema = z.array(batchItemResultSchema);
export type BatchItemResult = z.infer<typeof batchItemResultSchema>;
