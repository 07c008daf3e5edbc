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

const deliverJobSchema = z.object({
  messageId: z.string().min(1).max(200),
  /** Recipient rows (message_recipients.id) of one domain. */
  recipientIds: z.array(z.number().int().positive()).min(1),
  /** Request id of the API call that accepted the message (log correlation). */
  requestId: z.string().max(200).optional(),
});

const notifyJobSchema = z.object({
  /** Row of webhook_notifications. */
  notificationId: z.number().int().positive(),
});

export type DeliverJob = z.infer<typeof deliverJobSchema>;
export type NotifyJob = z.infer<typeof notifyJobSchema>;

/** One per message and recipient domain. The expiry comes from the configuration (applyQueuePolicies). */
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

/** Queue names, for enqueuers and SQL that reads pgboss.job. */
export const QUEUE = {
  deliver: deliverQueue.name,
  notify: notifyQueue.name,
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];
