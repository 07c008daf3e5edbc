import { z } from "zod";
import { defineJob } from "./job-definition";

const notifyJobSchema = z.object({
  /** Row of webhook_notifications. */
  notificationId: z.number().int().positive(),
});
export type NotifyJob = z.infer<typeof notifyJobSchema>;

/**
 * One per webhook notification; worked by the dispatcher
 * (`notifyWorker`, lib/webhooks/start.ts). The notification's own schedule (next_attempt_at,
 * lib/webhooks/retry-policy.ts) decides its retries; the job's retries only
 * cover a worker that threw before recording.
 */
export const notifyQueue = defineJob({
  name: "notify",
  schema: notifyJobSchema,
  policy: { retryLimit: 10, retryDelay: 5, retryBackoff: true },
});
