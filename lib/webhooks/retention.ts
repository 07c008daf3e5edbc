import type { Database } from "../storage/database";
import { DAY, firstIdOfDay } from "../storage/day-partitions";
import { accountRetentions } from "../storage/event-partitions";
import { deleteAttemptsOfNotificationIds, deleteFinishedNotifications, notificationPartitionMustStay } from "../storage/notification-rows";
import { dropPastDays } from "../domain/partitions/day-partitions";
import { DEFAULT_RETENTION_DAYS } from "../domain/partitions/event-partitions";

const TABLE = "webhook_notifications";
/** Below every id: the lower bound of the legacy table. */
const MIN_ID = "-9223372036854775808";

/**
 * Purges the webhook delivery history: finished notifications (delivered,
 * failed, cancelled, held) completed longer ago than their account's
 * retention period (the same as the event log's), with their attempt log.
 * Pending notifications are never purged.
 *
 * A day table (docs/adr/0042) goes whole once its day has ended, none of its
 * notifications is pending, and every one finished before the longest
 * retention of any account: its attempts are deleted (by id range), then it
 * is detached and dropped, oldest first, each statement waiting at most 50 ms
 * for its lock (a drop not granted waits, with every newer day, for the next
 * run). The rest goes row by row in batches (ON DELETE CASCADE takes the
 * attempts), so that no statement holds locks for long. `webhookNotifications`
 * counts the rows deleted one by one.
 */
export async function purgeWebhookHistory(database: Database, now = new Date(), batchSize = 5000) {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const longest = Math.max(DEFAULT_RETENTION_DAYS, ...(await accountRetentions(database)).map((a) => a.retentionDays));
  const keepAfter = new Date((nowSeconds - longest * DAY) * 1000);
  const { dropped, waiting } = await dropPastDays(
    database,
    TABLE,
    {
      mayDrop: async (p) => !(await notificationPartitionMustStay(database, p.name, keepAfter)),
      // The attempts, by id range (a table left detached by a run whose DROP failed lost them before its DETACH).
      // Not counted: `webhookNotifications` counts the rows deleted one by one.
      beforeDrop: async (_name, p) => {
        if (p) await deleteAttemptsOfNotificationIds(database, p.lower === null ? MIN_ID : firstIdOfDay(p.lower), firstIdOfDay(p.upper!));
        return 0;
      },
    },
    now,
  );
  let webhookNotifications = 0;
  for (;;) {
    const deleted = await deleteFinishedNotifications(database, now, batchSize);
    webhookNotifications += deleted;
    if (!deleted || deleted < batchSize) break;
  }
  return { webhookNotifications, webhookPartitionsDropped: dropped, webhookPartitionsWaiting: waiting };
}
