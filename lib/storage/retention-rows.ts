import type { Queryable } from "./database";
import { retentionFloorSql } from "./retention-sql";

/**
 * The retention purge's deletes (lib/maintenance/retention-purge.ts), each
 * in batches of 5,000 so that no statement holds locks for long. Each
 * returns how many rows went.
 */

const BATCH = 5000;

async function deleteInBatches(q: Queryable, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await q.query(sql, params);
    total += rowCount ?? 0;
    if (!rowCount || rowCount < BATCH) return total;
  }
}

/**
 * Messages past their account's retention whose recipients are all final and
 * that no remaining event shows, with their recipients (no foreign key takes
 * them since messages are partitioned, docs/adr/0044; their attempts and
 * windows follow by theirs). By (id, created_at), so each delete finds its
 * day table. The whole days past the longest retention go by DROP
 * (lib/domain/partitions/message-partitions.ts); this thins the days a shorter retention reaches.
 */
export async function deleteMessagesPastRetention(q: Queryable, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await q.query<{ n: number }>(
      `WITH doomed AS (
         SELECT m.id, m.created_at FROM messages m JOIN accounts a ON a.id = m.account_id
          WHERE m.created_at < $1::timestamptz - make_interval(days => a.retention_days)
            AND NOT EXISTS (SELECT 1 FROM message_recipients r WHERE r.message_id = m.id AND r.status IN ('queued', 'deferred'))
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.account_id = m.account_id AND e.message_id = m.id)
          LIMIT ${BATCH}
       ), gone AS (
         DELETE FROM messages m USING doomed d WHERE m.id = d.id AND m.created_at = d.created_at RETURNING m.id
       ), recipients AS (
         DELETE FROM message_recipients r USING gone WHERE r.message_id = gone.id
       )
       SELECT count(*)::int AS n FROM gone`,
      [now],
    );
    total += rows[0]!.n;
    if (rows[0]!.n < BATCH) return total;
  }
}

/** Rate-limit counters (per key, and the account-wide days of migration 1007) of windows that started before `beforeSeconds` (Unix seconds). */
export async function deleteLimitCountersBefore(q: Queryable, beforeSeconds: number): Promise<number> {
  const perKey = await deleteInBatches(q, `DELETE FROM limit_counters WHERE ctid IN (SELECT ctid FROM limit_counters WHERE window_start < $1 LIMIT 5000)`, [beforeSeconds]);
  const perAccount = await deleteInBatches(
    q,
    `DELETE FROM account_limit_counters WHERE ctid IN (SELECT ctid FROM account_limit_counters WHERE window_start < $1 LIMIT 5000)`,
    [beforeSeconds],
  );
  return perKey + perAccount;
}

/**
 * Hourly summaries of GET /events counts (ADR 0101) and their breakdowns (docs/adr/0517) before
 * their account's retention floor, the boundary below which the purge deletes the hour's events
 * (docs/adr/0515); one statement.
 */
export async function deleteEventHourCountsPastRetention(q: Queryable, nowSeconds: number): Promise<number> {
  const { rowCount } = await q.query(
    `WITH breakdowns AS (
       DELETE FROM event_hour_breakdowns b USING accounts a
        WHERE a.id = b.account_id AND b.hour < ${retentionFloorSql("$1::bigint", "a.retention_days")}
     )
     DELETE FROM event_hour_counts c USING accounts a
      WHERE a.id = c.account_id AND c.hour < ${retentionFloorSql("$1::bigint", "a.retention_days")}`,
    [nowSeconds],
  );
  return rowCount ?? 0;
}
