import type { Database } from "../../storage/database";
import {
  DAY,
  DAY_PARTITIONED,
  deleteDayPartitionRowsBefore,
  detachedDayPartitions,
  dropDayPartition,
  ensureDayPartitions,
  listDayPartitions,
  strayDays,
  type DayPartition,
  type DayPartitionedTable,
  type TimeKeyedTable,
} from "../../storage/day-partitions";
import { LOCK_NOT_AVAILABLE } from "../../storage/sqlstate";
import { DAYS_AHEAD, DAYS_BEHIND } from "./event-partitions";

/**
 * The tables partitioned by day with the generic functions of migration 0972
 * (docs/adr/0040), over time: day tables made ahead, the default partition
 * emptied into them, and retention by dropping whole days. Each of these
 * tables has one instance-wide retention, so only the day that straddles it
 * (and the legacy and default partitions, which no day bounds) is thinned row by row.
 */

/** Makes the day tables of every day-partitioned table around `now`, and moves stray rows of the default partitions to their day. Hourly and at each start. */
export async function maintainDayPartitions(database: Database, now = new Date()) {
  const t = Math.floor(now.getTime() / 1000);
  let made = 0;
  let strayDaysMoved = 0;
  for (const table of Object.keys(DAY_PARTITIONED) as DayPartitionedTable[]) {
    made += await ensureDayPartitions(database, table, t - DAYS_BEHIND * DAY, t + DAYS_AHEAD * DAY);
    const stray = await strayDays(database, table);
    for (const day of stray) made += await ensureDayPartitions(database, table, day, day + DAY);
    strayDaysMoved += stray.length;
  }
  return { dayPartitionsMade: made, dayPartitionDaysMovedFromDefault: strayDaysMoved };
}

/** What may go with a whole day table, and what goes with it (`dropPastDays`). */
export interface DayDropRules {
  /** Whether this day table (one whose day ended more than DAYS_BEHIND days ago) may go whole now. */
  mayDrop(p: DayPartition): boolean | Promise<boolean>;
  /** Rows elsewhere that no foreign key takes with a table about to be detached (or left detached); returns a count for the report. */
  beforeDrop?(name: string, p?: DayPartition): Promise<number>;
}

/**
 * Drops the whole day tables of `table` that `rules.mayDrop` lets go, oldest
 * first, each DETACH and DROP waiting at most 50 ms for its lock: a drop not
 * granted waits, with every newer day that may go, for the next run (so a day
 * never goes before an older one). A table left detached by a run whose DROP
 * failed goes first. The days behind now that the hourly ensure makes again
 * (DAYS_BEHIND) are never dropped, so that no run drops a table the next
 * makes again. Returns the tables that stay (`kept`, oldest first; not the
 * ones whose drop waits), for the caller to thin row by row.
 */
export async function dropPastDays(database: Database, table: DayPartitionedTable, rules: DayDropRules, now = new Date()) {
  const keepFrom = Math.floor(now.getTime() / 1000) - DAYS_BEHIND * DAY;
  let dropped = 0;
  let waiting = 0;
  let heldRows = 0;
  const kept: DayPartition[] = [];
  for (const name of await detachedDayPartitions(database, table)) {
    heldRows += (await rules.beforeDrop?.(name)) ?? 0;
    await dropDayPartition(database, table, name, true);
    dropped++;
  }
  for (const p of await listDayPartitions(database, table)) {
    if (p.upper === null || p.upper > keepFrom || !(await rules.mayDrop(p))) {
      kept.push(p);
      continue;
    }
    if (waiting === 0) {
      try {
        // Inside the try: what goes first may itself wait for a lock (the recipients' tracking tables).
        const held = (await rules.beforeDrop?.(p.name, p)) ?? 0;
        await dropDayPartition(database, table, p.name);
        dropped++;
        heldRows += held;
        continue;
      } catch (err) {
        if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      }
    }
    waiting++;
  }
  return { dropped, waiting, heldRows, kept };
}

/**
 * Removes the rows of `table` before `before` (Unix seconds): the day tables
 * that end at or before it go whole (`dropPastDays`); the rows before it in the
 * tables that stay (the day that straddles it, the days behind now that are
 * kept) are deleted in batches. A day whose drop waits is not thinned: the
 * next run drops it whole.
 */
export async function purgeDayPartitionedBefore(database: Database, table: TimeKeyedTable, before: number, now = new Date()) {
  const { dropped, waiting, kept } = await dropPastDays(database, table, { mayDrop: (p) => p.upper! <= before }, now);
  let rows = 0;
  for (const p of kept) {
    if (p.lower === null || p.lower < before) rows += await deleteDayPartitionRowsBefore(database, table, p.name, before);
  }
  return { rows, partitionsDropped: dropped, partitionsWaiting: waiting };
}
