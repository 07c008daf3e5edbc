import type pg from "pg";

/**
 * Purges the webhook delivery history: finished notifications (delivered,
 * failed, cancelled) completed longer ago than their account's retention
 * period (the same as the event log's), with their attempt log (ON DELETE
 * CASCADE). Pending notifications are never purged. In batches, so that no
 * statement holds locks for long. Returns how many notifications went.
 */
export async function purgeWebhookHistory(pool: pg.Pool, now = new Date(), batchSize = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM webhook_notifications WHERE id IN (
         SELECT n.id FROM webhook_notifications n JOIN accounts a ON a.id = n.account_id
          WHERE n.status <> 'pending' AND n.completed_at < $1::timestamptz - make_interval(days => a.retention_days)
          LIMIT $2)`,
      [now, batchSize],
    );
    total += rowCount ?? 0;
    if (!rowCount || rowCount < batchSize) return total;
  }
}
