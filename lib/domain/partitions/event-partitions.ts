import type { Database } from "../../storage/database";
import {
  DAY,
  accountRetentions,
  daysInDefaultPartition,
  deleteAccountEventsBefore,
  detachedDayTables,
  dropEventPartition,
  ensureEventPartitions,
  listEventPartitions,
  type EventPartition,
} from "../../storage/event-partitions";
import { LOCK_NOT_AVAILABLE } from "../../storage/sqlstate";
import { retentionFloor } from "../events/retention-floor";

/**
 * The event log's day partitions over time (docs/adr/0030, 0031): made ahead,
 * the default partition emptied into them, dropped past the longest
 * retention, and shorter retentions applied inside the few partitions between.
 */

/** Day partitions kept ready behind and ahead of now (docs/adr/0030): a week ahead covers a job that fails for days. */
export const DAYS_BEHIND = 2;
export const DAYS_AHEAD = 8;

/**
 * Makes the day partitions of `events` around `now` and moves the rows that
 * fell into the default partition (a clock that jumped past the days made
 * ahead) into tables of their own days. Runs hourly and at each start.
 */
export async function maintainEventPartitions(database: Database, now = new Date()) {
  const t = Math.floor(now.getTime() / 1000);
  let made = await ensureEventPartitions(database, t - DAYS_BEHIND * DAY, t + DAYS_AHEAD * DAY);
  const stray = await daysInDefaultPartition(database);
  for (const day of stray) made += await ensureEventPartitions(database, day, day + DAY);
  return { eventPartitionsMade: made, eventDaysMovedFromDefault: stray.length };
}

/**
 * Events go by whole day partitions (docs/adr/0031): a partition older than
 * the longest retention of any account is detached and dropped; rows of
 * accounts with a shorter retention are deleted only from the partitions
 * between their retention and the longest (and from the legacy and default
 * partitions, which no day bounds). Reads never return a row past its
 * account's retention (lib/domain/events/list-events.ts), so a drop that waits for
 * the next run (its lock not granted within 50 ms) shows nowhere.
 */
/** The default retention of docs/contract.md §7.4, when there is no account yet. */
export const DEFAULT_RETENTION_DAYS = 30;

/** The longest retention of any account, in days: what a whole day table past it may go by. */
export function longestRetentionDays(accounts: { retentionDays: number }[]): number {
  return Math.max(DEFAULT_RETENTION_DAYS, ...accounts.map((a) => a.retentionDays));
}

export async function purgeEventsPastRetention(database: Database, nowSeconds: number) {
  const accounts = await accountRetentions(database);
  const longest = longestRetentionDays(accounts);
  const dropBefore = nowSeconds - longest * DAY;
  let eventPartitionsDropped = 0;
  let eventPartitionsWaiting = 0;
  for (const name of await detachedDayTables(database)) {
    await dropEventPartition(database, name, true);
    eventPartitionsDropped++;
  }
  const kept: EventPartition[] = [];
  for (const p of await listEventPartitions(database)) {
    if (p.upper === null || p.upper > dropBefore || eventPartitionsWaiting > 0) {
      if (p.upper !== null && p.upper <= dropBefore) eventPartitionsWaiting++;
      kept.push(p);
      continue;
    }
    try {
      await dropEventPartition(database, p.name);
      eventPartitionsDropped++;
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      eventPartitionsWaiting++; // acceptance held the table: the next run tries again
      kept.push(p);
    }
  }
  let events = 0;
  for (const a of accounts) {
    // Whole hours only: an hour a read sums from its summary is never thinned (docs/adr/0515).
    const before = retentionFloor(nowSeconds, a.retentionDays);
    for (const p of kept) {
      // Day partitions: only below a shorter retention than the longest (those past the longest are dropped whole).
      const mayHold = p.lower === null || (a.retentionDays < longest && p.lower < before);
      if (mayHold) events += await deleteAccountEventsBefore(database, p.name, a.id, before);
    }
  }
  return { events, eventPartitionsDropped, eventPartitionsWaiting };
}
