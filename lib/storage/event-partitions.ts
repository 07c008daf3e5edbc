import type { Database } from "./database";
import { DAY, inTransactionWithLockTimeout } from "./day-partitions";

/**
 * The day partitions of `events` (migration 0952, docs/adr/0030): the SQL the
 * maintenance jobs run to make them ahead, to empty the default partition
 * into them, and to drop them past retention (docs/adr/0031). Statements that
 * lock `events` wait at most LOCK_TIMEOUT (./day-partitions.ts) for their lock: while one waits,
 * inserts queue behind it, so a busy table makes the statement fail (and the
 * next run try again) rather than hold acceptance up.
 */

export { DAY } from "./day-partitions";

/** One partition: [lower, upper) in Unix seconds; null is unbounded (the legacy one below, the default one both ways). */
export interface EventPartition {
  name: string;
  lower: number | null;
  upper: number | null;
  isDefault: boolean;
}

const DAY_NAME = /^events_p(\d{4})(\d{2})(\d{2})$/;
const PARTITION_NAME = /^events_(p\d{8}|legacy|default)$/;

/** Quotes a partition name after checking that it is one (the names come from the catalog, never from a request). */
function partitionIdent(name: string): string {
  if (!PARTITION_NAME.test(name)) throw new Error(`not an events partition: ${name}`);
  return `"${name}"`;
}

export function dayPartitionName(dayStart: number): string {
  return `events_p${new Date(dayStart * 1000).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** Makes the missing day partitions of [fromTime, toTime), moving the default partition's rows for those days into them. */
export async function ensureEventPartitions({ pool }: Database, fromTime: number, toTime: number): Promise<number> {
  return inTransactionWithLockTimeout(pool, async (client) => {
    const { rows } = await client.query<{ made: number }>("SELECT event_partitions_ensure($1, $2) AS made", [fromTime, toTime]);
    return rows[0]!.made;
  });
}

/**
 * The days the default partition holds rows for (events whose day had no
 * partition when they were logged), from the cut-over on: earlier days
 * belong to the legacy partition, and rows of them wait for retention.
 */
export async function daysInDefaultPartition({ pool }: Database, limit = 100): Promise<number[]> {
  const { rows } = await pool.query<{ day: number }>(
    `SELECT DISTINCT logged_at - logged_at % ${DAY} AS day FROM events_default
      WHERE logged_at >= (SELECT legacy_before FROM event_log_layout) ORDER BY 1 LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.day);
}

/** Every partition of `events` with its range, oldest first (the default one last). */
export async function listEventPartitions({ pool }: Database): Promise<EventPartition[]> {
  const { rows } = await pool.query<{ name: string; legacy_before: number }>(
    `SELECT c.relname AS name, (SELECT legacy_before FROM event_log_layout) AS legacy_before
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass`,
  );
  const parts: EventPartition[] = [];
  for (const r of rows) {
    if (r.name === "events_default") parts.push({ name: r.name, lower: null, upper: null, isDefault: true });
    else if (r.name === "events_legacy") parts.push({ name: r.name, lower: null, upper: r.legacy_before, isDefault: false });
    else {
      const m = DAY_NAME.exec(r.name);
      if (!m) continue; // not one of ours
      const lower = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 1000;
      parts.push({ name: r.name, lower, upper: lower + DAY, isDefault: false });
    }
  }
  const key = (p: EventPartition) => (p.isDefault ? Infinity : (p.lower ?? -Infinity));
  return parts.sort((a, b) => key(a) - key(b));
}

/** Day tables left detached by a drop that failed half-way (detached, then not dropped). */
export async function detachedDayTables({ pool }: Database): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname ~ '^events_(p[0-9]{8}|legacy)$'
        AND NOT c.relispartition`,
  );
  return rows.map((r) => r.name);
}

/**
 * Detaches a partition (a moment's ACCESS EXCLUSIVE lock on `events`, waited
 * for at most LOCK_TIMEOUT) and drops it in a second statement that no
 * longer touches `events`. A table already detached is only dropped.
 */
export async function dropEventPartition({ pool }: Database, name: string, alreadyDetached = false): Promise<void> {
  const ident = partitionIdent(name);
  if (!alreadyDetached) await inTransactionWithLockTimeout(pool, (c) => c.query(`ALTER TABLE events DETACH PARTITION ${ident}`));
  await inTransactionWithLockTimeout(pool, (c) => c.query(`DROP TABLE ${ident}`));
}

/** Deletes one account's rows logged before `before` from one partition, 5,000 at a time; returns how many. */
export async function deleteAccountEventsBefore({ pool }: Database, partition: string, accountId: string, before: number): Promise<number> {
  const ident = partitionIdent(partition);
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM ${ident} WHERE ctid IN (SELECT ctid FROM ${ident} WHERE account_id = $1 AND logged_at < $2 LIMIT 5000)`,
      [accountId, before],
    );
    total += rowCount ?? 0;
    if (!rowCount || rowCount < 5000) return total;
  }
}

/** Each account's retention period in days. */
export async function accountRetentions({ pool }: Database): Promise<{ id: string; retentionDays: number }[]> {
  const { rows } = await pool.query<{ id: string; retention_days: number }>("SELECT id, retention_days FROM accounts");
  return rows.map((r) => ({ id: r.id, retentionDays: r.retention_days }));
}
