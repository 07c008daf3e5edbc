import type { EventType } from "../contract/events";
import { longStatement, type Queryable } from "./database";
import { RETAINED_FROM } from "./retention-sql";
import type { Tx } from "./transaction";

/**
 * The SQL of the hourly event summaries (migration 0100, docs/adr/0101):
 * event_hour_counts and event_rollup_state, and the counts read from them.
 * lib/domain/event-counts.ts decides what is summarised and when; this is
 * only the SQL.
 */

export const HOUR = 3600;

export interface RollupViewRow {
  ru: number | null;
  oldest: number | null;
  retained_from: number | null;
}

/** The account's summary state, oldest event and retention floor (docs/adr/0515), in one round trip. */
export async function selectRollupView(q: Queryable, accountId: string): Promise<RollupViewRow | undefined> {
  const { rows } = await q.query<RollupViewRow>({
    name: "mailroom_rollup_view",
    text: `SELECT (SELECT rolled_until FROM event_rollup_state WHERE account_id = $1) AS ru,
                  (SELECT logged_at FROM events WHERE account_id = $1 ORDER BY logged_at, id LIMIT 1) AS oldest,
                  ${RETAINED_FROM} AS retained_from`,
    values: [accountId],
  });
  return rows[0];
}

/** The account's state row, made at 0 when it has none. */
export async function ensureRollupState(q: Queryable, accountId: string): Promise<void> {
  await q.query("INSERT INTO event_rollup_state (account_id, rolled_until) VALUES ($1, 0) ON CONFLICT (account_id) DO NOTHING", [accountId]);
}

/** The account's state row, locked NOWAIT (another roller holding it makes this throw lock_not_available), and the database's clock. */
export async function lockRollupState(tx: Tx, accountId: string): Promise<{ ru: number; now: number }> {
  const state = await tx.query<{ ru: number; now: number }>(
    "SELECT rolled_until AS ru, extract(epoch FROM now())::bigint AS now FROM event_rollup_state WHERE account_id = $1 FOR UPDATE NOWAIT",
    [accountId],
  );
  return state.rows[0]!;
}

/** Adds the account's events of [from, to) to their hours' rows. */
export async function addHourCounts(tx: Tx, accountId: string, from: number, to: number): Promise<void> {
  // The first roll-up of an account with months of events reads all of them (docs/adr/0514).
  await tx.query(
    longStatement(
      `INSERT INTO event_hour_counts (account_id, hour, type, n)
     SELECT $1, logged_at - logged_at % ${HOUR}, type, count(*) FROM events
     WHERE account_id = $1 AND logged_at >= $2 AND logged_at < $3
     GROUP BY 2, 3
     ON CONFLICT (account_id, hour, type) DO UPDATE SET n = event_hour_counts.n + EXCLUDED.n`,
      [accountId, from, to],
    ),
  );
}

export async function updateRolledUntil(tx: Tx, accountId: string, rolledUntil: number): Promise<void> {
  await tx.query("UPDATE event_rollup_state SET rolled_until = $2 WHERE account_id = $1", [accountId, rolledUntil]);
}

export interface StatsQuery {
  accountId: string;
  /** Bucket size in seconds (hours divide it). */
  size: number;
  from: number;
  to: number;
  /** The summarised span [a, b): its hours from event_hour_counts, the rest of [from, to] from the rows. */
  a: number;
  b: number;
  types: readonly EventType[];
  /** The retention floor (docs/adr/0031, 0515): no row before it is counted. */
  retainedFrom: number;
}

/** Counts per bucket and event type: summaries for [a, b), rows for the rest. */
export async function selectStatsCounts(q: Queryable, s: StatsQuery): Promise<{ bucket: number; type: EventType; n: number }[]> {
  const { rows } = await q.query<{ bucket: number; type: EventType; n: number }>(
    `SELECT bucket, type, sum(n)::bigint AS n FROM (
       SELECT hour - hour % $2 AS bucket, type, n FROM event_hour_counts
        WHERE account_id = $1 AND hour >= $5 AND hour < $6
       UNION ALL
       SELECT logged_at - logged_at % $2, type, count(*) FROM events
        WHERE account_id = $1 AND type = ANY($7::text[]) AND logged_at >= $3 AND logged_at >= $8 AND logged_at < $5 GROUP BY 1, 2
       UNION ALL
       SELECT logged_at - logged_at % $2, type, count(*) FROM events
        WHERE account_id = $1 AND type = ANY($7::text[]) AND logged_at >= $6 AND logged_at >= $8 AND logged_at <= $4 GROUP BY 1, 2
     ) x GROUP BY 1, 2`,
    [s.accountId, s.size, s.from, s.to, s.a, s.b, s.types, s.retainedFrom],
  );
  return rows;
}
