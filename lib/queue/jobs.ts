import { z } from "zod";

/**
 * The queues and what their jobs carry, each defined once: name, payload
 * schema and retry policy. Jobs refer to rows by id; the rows are the truth,
 * a job only says "look at this now". Enqueuers (lib/domain) import these;
 * the handlers live with their feature and are bound to a queue where its
 * loop starts (lib/queue/worker-loop.ts), which parses every payload with
 * its schema.
 */

export interface RetryPolicy {
  retryLimit: number;
  /** Seconds before the first retry; doubled (with jitter) per retry when `retryBackoff`. */
  retryDelay: number;
  retryBackoff: boolean;
  /** How long a fetched job may stay active before pg-boss takes it for dead (default the queue's). */
  expireInSeconds?: number;
}

export interface QueueSpec<T> {
  name: string;
  schema: z.ZodType<T>;
  policy: RetryPolicy;
}

/** One message's part of a deliver job: its pending recipients of one domain. */
const deliverEntrySchema = z.object({
  messageId: z.string().min(1).max(200),
  /** Recipient rows (message_recipients.id) of one domain. */
  recipientIds: z.array(z.number().int().positive()).min(1),
  /** Request id of the API call that accepted the message (log correlation). */
  requestId: z.string().max(200).optional(),
});

/** Most messages in one deliver job (lib/queue/deliver-packing.ts packs to it; a job's entries are delivered together). */
export const MAX_DELIVER_ENTRIES = 16;

/**
 * A deliver job: the messages of one acceptance transaction, packed
 * (docs/adr/0024). Versions before it wrote one entry as the whole payload
 * (`{ messageId, recipientIds }`); such a job, still queued after an upgrade,
 * reads as a job of that one entry.
 */
const deliverJobSchema = z.preprocess(
  (data) => (typeof data === "object" && data !== null && !Array.isArray(data) && !("messages" in data) ? { messages: [data] } : data),
  z.object({ messages: z.array(deliverEntrySchema).min(1).max(MAX_DELIVER_ENTRIES) }),
);
/**
 * SQL over a `pgboss.job` row aliased `j`: its deliver entries as rows, both
 * shapes of the schema above (`messages`, or the whole payload for a job
 * written before packing). A malformed payload yields no row, never an error
 * (the stranded-recipient sweep must not stop on one).
 */
export const DELIVER_ENTRIES_SQL = `jsonb_array_elements(CASE WHEN jsonb_typeof(j.data->'messages') = 'array' THEN j.data->'messages' ELSE jsonb_build_array(j.data) END)`;

const notifyJobSchema = z.object({
  /** Row of webhook_notifications. */
  notificationId: z.number().int().positive(),
});

export type DeliverEntry = z.infer<typeof deliverEntrySchema>;
export type DeliverJob = z.infer<typeof deliverJobSchema>;
export type NotifyJob = z.infer<typeof notifyJobSchema>;

/** Messages (one recipient domain of each) delivered together. The expiry comes from the configuration (applyQueuePolicies). */
export const deliverQueue: QueueSpec<DeliverJob> = {
  name: "deliver",
  schema: deliverJobSchema,
  policy: { retryLimit: 20, retryDelay: 2, retryBackoff: true },
};

/**
 * One per webhook notification. The notification's own schedule
 * (next_attempt_at, lib/webhooks/retry-policy.ts) decides its retries; the
 * job's retries only cover a worker that threw before recording.
 */
export const notifyQueue: QueueSpec<NotifyJob> = {
  name: "notify",
  schema: notifyJobSchema,
  policy: { retryLimit: 10, retryDelay: 5, retryBackoff: true },
};

const inboundPostJobSchema = z.object({
  /** Row of inbound_messages. */
  inboundMessageId: z.uuid(),
  /** The attempts recorded when it was enqueued: a job that finds more (another job got there first) does nothing. */
  attempts: z.number().int().min(0).default(0),
});
export type InboundPostJob = z.infer<typeof inboundPostJobSchema>;

/**
 * One per attempt to post a received message to its route's URL
 * (docs/contract.md §13): the message's own schedule (the webhook retry
 * schedule) enqueues the next attempt with the record of this one; the
 * job's retries only cover a worker that threw before recording.
 */
export const inboundPostQueue: QueueSpec<InboundPostJob> = {
  name: "inbound-post",
  schema: inboundPostJobSchema,
  policy: { retryLimit: 10, retryDelay: 5, retryBackoff: true },
};
