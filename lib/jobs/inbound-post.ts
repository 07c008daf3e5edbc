import { z } from "zod";
import { defineJob } from "./job-definition";

const inboundPostJobSchema = z.object({
  /** Row of inbound_messages. */
  inboundMessageId: z.uuid(),
  /** The attempts recorded when it was enqueued: a job that finds more (another job got there first) does nothing. */
  attempts: z.number().int().min(0).default(0),
  /** When it was received (Unix ms): its statements then touch its day's table only (docs/adr/0041). Absent from jobs of older versions. */
  receivedAt: z.number().int().optional(),
});
export type InboundPostJob = z.infer<typeof inboundPostJobSchema>;

/**
 * One per attempt to post a received message to its route's URL
 * (docs/contract.md §13), worked by `inboundPostWorker` (lib/webhooks/inbound-post.ts): the
 * message's own schedule (the webhook retry schedule) enqueues the next
 * attempt with the record of this one; the job's retries only cover a
 * worker that threw before recording.
 */
export const inboundPostQueue = defineJob({
  name: "inbound-post",
  schema: inboundPostJobSchema,
  policy: { retryLimit: 10, retryDelay: 5, retryBackoff: true },
});
