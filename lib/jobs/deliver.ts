import { z } from "zod";
import { defineJob } from "./job-definition";

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
 * reads as a job of that one entry. (Its entries in SQL:
 * lib/storage/deliver-entries-sql.ts.)
 */
const deliverJobSchema = z.preprocess(
  (data) => (typeof data === "object" && data !== null && !Array.isArray(data) && !("messages" in data) ? { messages: [data] } : data),
  z.object({ messages: z.array(deliverEntrySchema).min(1).max(MAX_DELIVER_ENTRIES) }),
);

export type DeliverEntry = z.infer<typeof deliverEntrySchema>;
export type DeliverJob = z.infer<typeof deliverJobSchema>;

const deliverPolicy = { retryLimit: 20, retryDelay: 2, retryBackoff: true };

/**
 * Messages (one recipient domain of each) delivered together; worked by
 * `deliverWorker` (lib/delivery/start.ts). The expiry comes from the configuration: it decides
 * how soon a dead worker's job goes to another.
 */
export const deliverQueue = defineJob({
  name: "deliver",
  schema: deliverJobSchema,
  policy: deliverPolicy,
  configuredPolicy: (config) => ({ ...deliverPolicy, expireInSeconds: config.delivery.jobExpireSeconds }),
});
