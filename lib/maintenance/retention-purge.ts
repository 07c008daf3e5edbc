import type { AppContext } from "../context";
import type { MaintenanceJob } from "./maintenance-job";
import { purgeEventsPastRetention } from "../domain/event-partitions";

/**
 * Retention: events older than their account's retention period
 * (docs/contract.md §7.4), messages past retention whose recipients are all final and
 * that no remaining event shows (a late open keeps its message's headers),
 * sandbox captures older than MAILROOM_SANDBOX_RETENTION, rate-limit counters
 * of past windows, and the hourly event-count summaries past retention.
 * Deletes in batches so that no statement holds locks for long.
 * Events go by whole day partitions (lib/domain/event-partitions.ts, docs/adr/0031).
 */

async function deleteInBatches(ctx: AppContext, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await ctx.database.pool.query(sql, params);
    total += rowCount ?? 0;
    if (!rowCount || rowCount < 5000) return total;
  }
}

export async function purgePastRetention(ctx: AppContext, now = new Date()) {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const { events, eventPartitionsDropped, eventPartitionsWaiting } = await purgeEventsPastRetention(ctx.database, nowSeconds);
  const messages = await deleteInBatches(
    ctx,
    `DELETE FROM messages WHERE id IN (
       SELECT m.id FROM messages m JOIN accounts a ON a.id = m.account_id
        WHERE m.created_at < $1::timestamptz - make_interval(days => a.retention_days)
          AND NOT EXISTS (SELECT 1 FROM message_recipients r WHERE r.message_id = m.id AND r.status IN ('queued', 'deferred'))
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.account_id = m.account_id AND e.message_id = m.id)
        LIMIT 5000)`,
    [now],
  );
  const sandboxMessages = await deleteInBatches(
    ctx,
    `DELETE FROM sandbox_messages WHERE id IN (SELECT id FROM sandbox_messages WHERE received_at < $1 LIMIT 5000)`,
    [new Date(now.getTime() - ctx.config.delivery.sandboxRetentionMs)],
  );
  // Windows are Unix seconds; the longest window is a day, keep two.
  const limitCounters = await deleteInBatches(
    ctx,
    `DELETE FROM limit_counters WHERE ctid IN (SELECT ctid FROM limit_counters WHERE window_start < $1 LIMIT 5000)`,
    [nowSeconds - 2 * 86400],
  );
  // Hourly summaries of GET /events counts (ADR 0101) past the retention period.
  const { rowCount: eventSummaries } = await ctx.database.pool.query(
    `DELETE FROM event_hour_counts c USING accounts a
      WHERE a.id = c.account_id AND c.hour + 3600 <= $1::bigint - a.retention_days::bigint * 86400`,
    [nowSeconds],
  );
  return { events, eventPartitionsDropped, eventPartitionsWaiting, messages, sandboxMessages, limitCounters, eventSummaries: eventSummaries ?? 0 };
}

export const retentionPurge: MaintenanceJob = {
  name: "maintenance-retention",
  cron: "19 * * * *",
  run: purgePastRetention,
};
