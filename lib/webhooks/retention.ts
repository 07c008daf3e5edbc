import type { Database } from "../storage/database";
import { DAY, detachedDayPartitions, dropDayPartition, firstIdOfDay, listDayPartitions } from "../storage/day-partitions";
import { accountRetentions } from "../storage/event-partitions";
import { deleteAttemptsOfNotificationIds, deleteFinishedNotifications, notificationPartitionMustStay } from "../storage/notification-rows";
import { LOCK_NOT_AVAILABLE } from "../storage/sqlstate";
import { DAYS_BEHIND, DEFAULT_RETENTION_DAYS } from "../domain/event-partitions";

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
  let webhookPartitionsDropped = 0;
  let webhookPartitionsWaiting = 0;
  // A table detached by a run whose DROP then failed: its attempts went before the DETACH.
  for (const name of await detachedDayPartitions(database, TABLE)) {
    await dropDayPartition(database, TABLE, name, true);
    webhookPartitionsDropped++;
  }
  for (const p of await listDayPartitions(database, TABLE)) {
    // The days behind now are made again hourly (lib/domain/day-partitions.ts): an empty one is kept, not dropped and made again.
    if (p.upper === null || p.upper > nowSeconds - DAYS_BEHIND * DAY) continue;
    if (webhookPartitionsWaiting > 0) {
      webhookPartitionsWaiting++;
      continue;
    }
    if (await notificationPartitionMustStay(database, p.name, keepAfter)) continue;
    await deleteAttemptsOfNotificationIds(database, p.lower === null ? MIN_ID : firstIdOfDay(p.lower), firstIdOfDay(p.upper));
    try {
      await dropDayPartition(database, TABLE, p.name);
      webhookPartitionsDropped++;
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      webhookPartitionsWaiting++; // the next run drops it; its rows past each account's retention go one by one below
    }
  }
  let webhookNotifications = 0;
  for (;;) {
    const deleted = await deleteFinishedNotifications(database, now, batchSize);
    webhookNotifications += deleted;
    if (!deleted || deleted < batchSize) break;
  }
  return { webhookNotifications, webhookPartitionsDropped, webhookPartitionsWaiting };
}
