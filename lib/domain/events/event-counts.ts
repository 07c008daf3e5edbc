import type { Database } from "../../storage/database";
import { addHourBreakdowns } from "../../storage/event-breakdown-rows";
import { addHourCounts, ensureRollupState, HOUR, lockRollupState, updateRolledUntil } from "../../storage/event-count-rows";
import { withTransaction } from "../../storage/transaction";

/**
 * Exact event counts without counting millions of rows: events older than
 * five minutes are summarised per UTC hour in event_hour_counts (migration
 * 0100, docs/adr/0101), up to `rolled_until`, a minute boundary (the row of
 * the hour that contains it counts that hour's events before it); the rest
 * of a range is counted from the events table. A count is therefore
 *   sum(summaries of the whole hours in [a, b)) + count(events in range, outside [a, b))
 * where [a, b) is the part of the range that is both summarised
 * (< rolled_until) and intact: from the account's retention floor, an hour
 * boundary below which alone the purge deletes (docs/adr/0515), and from the
 * hour of its oldest remaining event (hours before it have no rows to count,
 * so a summary left there by an unfinished purge is never read).
 */

/**
 * Events younger than this are never summarised: an event that arrives later
 * for a summarised time is "late" and undoes the summary (migration 0102
 * uses the same figure). Only a transaction that stays open this long after
 * inserting events could be missed by a roll-up.
 */
export const ROLLUP_HORIZON_SECONDS = 300;
const MINUTE = 60;
/** Larger than any Unix time we store. */
export const FAR_FUTURE = 9_000_000_000_000;

export interface RollupView {
  rolledUntil: number;
  oldest: number | null;
  /** The account's retention floor (lib/domain/events/retention-floor.ts): nothing before it is read. */
  retainedFrom?: number;
}

const floorHour = (t: number) => t - (t % HOUR);
const ceilHour = (t: number) => (t % HOUR === 0 ? t : floorHour(t) + HOUR);

/**
 * The summarised, intact span [a, b) inside [lo, hi]: `a` an hour boundary,
 * `b` one too or `rolledUntil` (then the summary row of b's hour covers
 * exactly [hour, b)); a === b when there is none. The reads compute it in
 * SQL, in the statement that counts (lib/storage/event-count-rows.ts
 * `summarisedSpanCtes`); this is its definition, unit-tested.
 */
export function summarisedSpan(view: RollupView, lo: number, hi: number): { a: number; b: number } {
  if (view.oldest === null) return { a: hi + 1, b: hi + 1 };
  const a = Math.max(ceilHour(lo), floorHour(view.oldest), ceilHour(view.retainedFrom ?? 0));
  const b = Math.min(floorHour(hi + 1), view.rolledUntil);
  return a < b ? { a, b } : { a: hi + 1, b: hi + 1 };
}

/** The last minute boundary that may be summarised at `now` (Unix seconds). */
export function rollupTarget(now: number): number {
  const t = now - ROLLUP_HORIZON_SECONDS;
  return t - (t % MINUTE);
}

/**
 * Summarises the account's events from rolled_until up to the rollup target
 * (adding to the row of an hour summarised in part before). Safe to run
 * anywhere and concurrently: it holds the state row's lock (another roller
 * makes it return at once), and a late event either waits for it (and then
 * undoes the hours it touches) or is seen by it. Returns true when it moved.
 */
export async function rollupEventCounts(database: Database, accountId: string): Promise<boolean> {
  await ensureRollupState(database, accountId);
  try {
    return await withTransaction(database, async (tx) => {
      const { ru, now } = await lockRollupState(tx, accountId);
      const target = rollupTarget(now);
      if (ru >= target) return false; // nothing written: committing ends it like a rollback
      await addHourCounts(tx, accountId, ru, target);
      // The breakdowns (docs/adr/0517) cover exactly the counts' span: one rolled_until for both.
      await addHourBreakdowns(tx, accountId, ru, target);
      await updateRolledUntil(tx, accountId, target);
      return true;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "55P03") return false; // someone else is rolling up
    throw err;
  }
}

/** Background roll-ups of one process (buildAppContext, `ctx.rollups`): at most one per account at a time. */
export interface RollupScheduler {
  /** After a read saw the summaries behind: bring them forward in the background. */
  schedule(accountId: string, view: RollupView, onError: (err: unknown) => void): void;
  /** Waits for this process's roll-ups in flight (tests, shutdown). */
  settled(): Promise<void>;
}

export function createRollupScheduler(database: Database): RollupScheduler {
  const rolling = new Set<string>();
  return {
    schedule(accountId, view, onError) {
      if (view.oldest === null || view.rolledUntil >= rollupTarget(Math.floor(Date.now() / 1000))) return;
      if (rolling.has(accountId)) return;
      rolling.add(accountId);
      rollupEventCounts(database, accountId)
        .catch(onError)
        .finally(() => rolling.delete(accountId));
    },
    async settled() {
      while (rolling.size > 0) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

/** What the event reads need: the database and the process's roll-ups. */
export interface EventReads {
  database: Database;
  rollups: RollupScheduler;
}
