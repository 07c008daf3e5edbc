import type pg from "pg";
import type { Database } from "./database";
import { inTransactionOn } from "./transaction";

/**
 * Tables partitioned by UTC day through the generic functions of migration
 * 0972 (docs/adr/0040): the SQL the maintenance jobs run to make day tables
 * ahead, to empty the default partition into them, and to drop them past
 * retention. `events` keeps its own functions (lib/storage/event-partitions.ts,
 * migration 0952); it shares the lock discipline below. Statements that lock
 * a parent wait at most LOCK_TIMEOUT for their lock: while one waits, inserts
 * queue behind it, so a busy table makes the statement fail (and the next run
 * try again) rather than hold its writers up.
 */

export const DAY = 86_400;
export const LOCK_TIMEOUT = "50ms";

/**
 * The day-partitioned tables and their partition key: a timestamptz column,
 * or (`dayId`) a bigint id whose high bits are its UTC day number (id >> 32,
 * docs/adr/0042).
 */
export const DAY_PARTITIONED = {
  sandbox_messages: { key: "received_at", dayId: false },
  inbound_messages: { key: "received_at", dayId: false },
  // A message's recipients share its day: both take now() of the accepting statement (docs/adr/0044).
  messages: { key: "created_at", dayId: false },
  webhook_notifications: { key: "id", dayId: true },
  // A recipient's tracking rows share its day bounds (docs/adr/0043).
  message_recipients: { key: "id", dayId: true },
  delivery_attempts: { key: "recipient_id", dayId: true },
  engagement_windows: { key: "recipient_id", dayId: true },
} as const;
export type DayPartitionedTable = keyof typeof DAY_PARTITIONED;
/** The tables whose key is a time, whose rows can be deleted by it. */
export type TimeKeyedTable = { [T in DayPartitionedTable]: (typeof DAY_PARTITIONED)[T]["dayId"] extends false ? T : never }[DayPartitionedTable];

/** The first day-prefixed id of the day starting at `dayStart` (Unix seconds), as a decimal string (past 2^53 in 2059). */
export function firstIdOfDay(dayStart: number): string {
  return (BigInt(Math.floor(dayStart / DAY)) << 32n).toString();
}

/**
 * The lowest and highest of `ids`. Added to a statement by an array of ids
 * (`id = ANY ($1)` prunes no partition, the array being a parameter), they
 * let PostgreSQL prune it to the days those day-prefixed ids belong to when
 * it starts (docs/adr/0042, 0043): one table for a batch of one day.
 */
export function idBounds(ids: readonly number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const id of ids) {
    if (id < lo) lo = id;
    if (id > hi) hi = id;
  }
  return ids.length ? [lo, hi] : [0, -1];
}

/**
 * SQL that bounds `createdAt` (a message's created_at) to the days of the
 * recipient ids between `lo` and `hi` (SQL bigint expressions): a recipient's
 * id carries its message's day, both taking now() of the accepting statement
 * (docs/adr/0044). A sequence id from before day-prefixed ids (day 0) bounds
 * nothing above. Added to a join or an update by message id, it lets
 * PostgreSQL prune `messages` to those days when the statement starts or,
 * per row, in a nested loop.
 */
export function createdInIdDays(createdAt: string, lo: string, hi: string): string {
  return `${createdAt} >= to_timestamp((${lo} >> 32) * 86400)
          AND ${createdAt} < CASE WHEN ${hi} >> 32 = 0 THEN 'infinity'::timestamptz ELSE to_timestamp(((${hi} >> 32) + 1) * 86400) END`;
}

/** One partition: [lower, upper) in Unix seconds; null is unbounded (the legacy one below, the default one both ways). */
export interface DayPartition {
  name: string;
  lower: number | null;
  upper: number | null;
  isDefault: boolean;
}

const DAY_SUFFIX = /_p(\d{4})(\d{2})(\d{2})$/;

function tableIdent(table: DayPartitionedTable): string {
  if (!Object.hasOwn(DAY_PARTITIONED, table)) throw new Error(`not a day-partitioned table: ${table}`);
  return `"${table}"`;
}

/** Quotes a partition name after checking that it is one of `table` (the names come from the catalog, never from a request). */
export function partitionIdent(table: DayPartitionedTable, name: string): string {
  tableIdent(table);
  const rest = name.startsWith(`${table}_`) ? name.slice(table.length + 1) : "";
  if (!/^(p\d{8}|legacy|default)$/.test(rest)) throw new Error(`not a partition of ${table}: ${name}`);
  return `"${name}"`;
}

export function dayTableName(table: DayPartitionedTable, dayStart: number): string {
  return `${table}_p${new Date(dayStart * 1000).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** One transaction whose statements wait at most LOCK_TIMEOUT for a lock (SQLSTATE 55P03 past it). */
export async function inTransactionWithLockTimeout<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await inTransactionOn(client, () => work(client), { settings: [`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`], unusable: () => (broken = true) });
  } finally {
    client.release(broken);
  }
}

/** Makes the missing day tables of [fromTime, toTime), moving the default partition's rows for those days into them. */
export async function ensureDayPartitions({ pool }: Database, table: DayPartitionedTable, fromTime: number, toTime: number): Promise<number> {
  tableIdent(table);
  return inTransactionWithLockTimeout(pool, async (client) => {
    const { rows } = await client.query<{ made: number }>("SELECT day_partitions_ensure($1, $2, $3) AS made", [table, fromTime, toTime]);
    return rows[0]!.made;
  });
}

/** The days the default partition holds rows for (rows whose day had no table when written), from the cut-over on. */
export async function strayDays({ pool }: Database, table: DayPartitionedTable, limit = 100): Promise<number[]> {
  tableIdent(table);
  const { rows } = await pool.query<{ day: string }>("SELECT day_partitions_stray_days($1, $2) AS day", [table, limit]);
  return rows.map((r) => Number(r.day));
}

/** Every partition of `table` with its range, oldest first (the default one last). */
export async function listDayPartitions({ pool }: Database, table: DayPartitionedTable): Promise<DayPartition[]> {
  const { rows } = await pool.query<{ name: string; legacy_before: string | null }>(
    `SELECT c.relname AS name, (SELECT legacy_before FROM day_partition_layouts WHERE parent = $1) AS legacy_before
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass`,
    [table],
  );
  const parts: DayPartition[] = [];
  for (const r of rows) {
    if (r.name === `${table}_default`) parts.push({ name: r.name, lower: null, upper: null, isDefault: true });
    else if (r.name === `${table}_legacy`) parts.push({ name: r.name, lower: null, upper: Number(r.legacy_before), isDefault: false });
    else {
      const m = DAY_SUFFIX.exec(r.name);
      if (!m || r.name !== dayTableName(table, Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 1000)) continue; // not one of ours
      const lower = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 1000;
      parts.push({ name: r.name, lower, upper: lower + DAY, isDefault: false });
    }
  }
  const key = (p: DayPartition) => (p.isDefault ? Infinity : (p.lower ?? -Infinity));
  return parts.sort((a, b) => key(a) - key(b));
}

/** Whether the partition `name` of `table` holds any row (one row read at most). */
export async function dayPartitionHoldsRows({ pool }: Database, table: DayPartitionedTable, name: string): Promise<boolean> {
  const { rows } = await pool.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${partitionIdent(table, name)}) AS any`);
  return rows[0]!.any;
}

/** Whether the table `name` is a partition of `table`, a table of it left detached, or gone. */
export async function partitionState({ pool }: Database, table: DayPartitionedTable, name: string): Promise<"attached" | "detached" | "missing"> {
  partitionIdent(table, name);
  const { rows } = await pool.query<{ attached: boolean }>(
    `SELECT c.relispartition AS attached FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relname = $1 AND c.relkind = 'r'`,
    [name],
  );
  if (!rows[0]) return "missing";
  return rows[0].attached ? "attached" : "detached";
}

/** Day (and legacy) tables of `table` left detached by a drop that failed half-way. */
export async function detachedDayPartitions({ pool }: Database, table: DayPartitionedTable): Promise<string[]> {
  tableIdent(table);
  const { rows } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND NOT c.relispartition
        AND c.relname ~ ('^' || $1 || '_(p[0-9]{8}|legacy)$')`,
    [table],
  );
  return rows.map((r) => r.name);
}

/**
 * Detaches a partition (a moment's ACCESS EXCLUSIVE lock on the parent, waited
 * for at most LOCK_TIMEOUT) and drops it in a second statement that no longer
 * touches the parent. A table already detached is only dropped.
 */
export async function dropDayPartition({ pool }: Database, table: DayPartitionedTable, name: string, alreadyDetached = false): Promise<void> {
  const ident = partitionIdent(table, name);
  if (!alreadyDetached) await inTransactionWithLockTimeout(pool, (c) => c.query(`ALTER TABLE ${tableIdent(table)} DETACH PARTITION ${ident}`));
  await inTransactionWithLockTimeout(pool, (c) => c.query(`DROP TABLE ${ident}`));
}

/** Deletes the rows of one partition whose key is before `before` (Unix seconds), 5,000 at a time; returns how many. */
export async function deleteDayPartitionRowsBefore({ pool }: Database, table: TimeKeyedTable, partition: string, before: number): Promise<number> {
  const ident = partitionIdent(table, partition);
  const key = `"${DAY_PARTITIONED[table].key}"`;
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM ${ident} WHERE ctid IN (SELECT ctid FROM ${ident} WHERE ${key} < to_timestamp($1) LIMIT 5000)`,
      [before],
    );
    total += rowCount ?? 0;
    if (!rowCount || rowCount < 5000) return total;
  }
}
