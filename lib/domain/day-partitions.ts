import type { Database } from "../storage/database";
import {
  DAY,
  DAY_PARTITIONED,
  deleteDayPartitionRowsBefore,
  detachedDayPartitions,
  dropDayPartition,
  ensureDayPartitions,
  listDayPartitions,
  strayDays,
  type DayPartitionedTable,
  type TimeKeyedTable,
} from "../storage/day-partitions";
import { LOCK_NOT_AVAILABLE } from "../storage/sqlstate";
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

/**
 * Removes the rows of `table` before `before` (Unix seconds): the day tables
 * that end at or before it are detached and dropped, oldest first (a drop whose
 * lock is not granted within 50 ms, and every newer one, waits for the next
 * run, whole); the rows before it in the partitions that straddle it are deleted in batches.
 */
export async function purgeDayPartitionedBefore(database: Database, table: TimeKeyedTable, before: number) {
  let dropped = 0;
  let waiting = 0;
  let rows = 0;
  for (const name of await detachedDayPartitions(database, table)) {
    await dropDayPartition(database, table, name, true);
    dropped++;
  }
  for (const p of await listDayPartitions(database, table)) {
    const wholeDayPast = p.upper !== null && p.upper <= before;
    if (wholeDayPast && waiting === 0) {
      try {
        await dropDayPartition(database, table, p.name);
        dropped++;
        continue;
      } catch (err) {
        if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      }
    }
    if (wholeDayPast) {
      waiting++; // dropped whole by the next run, not thinned a row at a time now
      continue;
    }
    if (p.lower === null || p.lower < before) rows += await deleteDayPartitionRowsBefore(database, table, p.name, before);
  }
  return { rows, partitionsDropped: dropped, partitionsWaiting: waiting };
}
