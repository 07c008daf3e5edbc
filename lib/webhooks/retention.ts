import type { Queryable } from "../storage/database";
import { deleteFinishedNotifications } from "../storage/notification-rows";

/**
 * Purges the webhook delivery history: finished notifications (delivered,
 * failed, cancelled) completed longer ago than their account's retention
 * period (the same as the event log's), with their attempt log (ON DELETE
 * CASCADE). Pending notifications are never purged. In batches, so that no
 * statement holds locks for long. Returns how many notifications went.
 */
export async function purgeWebhookHistory(q: Queryable, now = new Date(), batchSize = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteFinishedNotifications(q, now, batchSize);
    total += deleted;
    if (!deleted || deleted < batchSize) return total;
  }
}
