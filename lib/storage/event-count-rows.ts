import type { EventType } from "../contract/events";
import { longStatement, type Queryable } from "./database";
import { RETAINED_FROM } from "./retention-sql";
import type { Tx } from "./transaction";

/**
 * The SQL of the hourly event summaries (migration 0100, docs/adr/0101):
 * event_hour_counts and event_rollup_state, and the counts read from them.
 * lib/domain/events/event-counts.ts decides what is summarised and when; this is
 * only the SQL.
 */

export const HOUR = 3600;

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

/**
 * CTEs `v`, `w` and `s` of a count statement: account $1's summary state, oldest event and
 * retention floor, and `s` (one row: ru, oldest, rf, a, b), the summarised span [a, b) inside
 * [lo, hi] (lib/domain/events/event-counts.ts `summarisedSpan`, in SQL). Read in the statement that
 * counts, so state and summaries come from one snapshot: a roll-up or a late event's undo
 * committing between two statements would count a span twice or not at all.
 */
export function summarisedSpanCtes(lo: string, hi: string): string {
  return `v AS MATERIALIZED (
       SELECT coalesce((SELECT rolled_until FROM event_rollup_state WHERE account_id = $1), 0) AS ru,
              (SELECT logged_at FROM events WHERE account_id = $1 ORDER BY logged_at, id LIMIT 1) AS oldest,
              coalesce(${RETAINED_FROM}, 0) AS rf
     ), w AS MATERIALIZED (
       SELECT ru, oldest, rf,
              greatest(${lo} + (${HOUR} - ${lo} % ${HOUR}) % ${HOUR}, oldest - oldest % ${HOUR}, rf) AS a0,
              least(${hi} + 1 - (${hi} + 1) % ${HOUR}, ru) AS b0
       FROM v
     ), s AS MATERIALIZED (
       SELECT ru, oldest, rf,
              CASE WHEN oldest IS NOT NULL AND a0 < b0 THEN a0 ELSE ${hi} + 1 END AS a,
              CASE WHEN oldest IS NOT NULL AND a0 < b0 THEN b0 ELSE ${hi} + 1 END AS b
       FROM w
     )`;
}

export interface StatsQuery {
  accountId: string;
  /** Bucket size in seconds (hours divide it). */
  size: number;
  from: number;
  to: number;
  types: readonly EventType[];
}

export interface StatsCounts {
  /** The summary state the counts were read with (the caller brings the summaries forward). */
  ru: number;
  oldest: number | null;
  counts: { bucket: number; type: EventType; n: number }[];
}

/**
 * Counts per bucket and event type in [from, to], in one statement: summaries for the
 * summarised span [a, b) (`summarisedSpanCtes`), rows for the rest, none before the
 * retention floor (docs/adr/0031, 0515).
 */
export async function selectStatsCounts(q: Queryable, s: StatsQuery): Promise<StatsCounts> {
  const { rows } = await q.query<{ ru: number; oldest: number | null; counts: [number, EventType, number][] }>({
    name: "mailroom_stats_counts",
    text: `WITH ${summarisedSpanCtes("$3::bigint", "$4::bigint")}
     SELECT s.ru, s.oldest, coalesce((SELECT json_agg(json_build_array(bucket, type, n)) FROM (
       SELECT bucket, type, sum(n)::bigint AS n FROM (
         SELECT hour - hour % $2 AS bucket, type, n FROM event_hour_counts
          WHERE account_id = $1 AND hour >= s.a AND hour < s.b
         UNION ALL
         SELECT logged_at - logged_at % $2, type, count(*) FROM events
          WHERE account_id = $1 AND type = ANY($5::text[]) AND logged_at >= $3 AND logged_at >= s.rf AND logged_at < s.a GROUP BY 1, 2
         UNION ALL
         SELECT logged_at - logged_at % $2, type, count(*) FROM events
          WHERE account_id = $1 AND type = ANY($5::text[]) AND logged_at >= s.b AND logged_at >= s.rf AND logged_at <= $4 GROUP BY 1, 2
       ) x GROUP BY 1, 2) c), '[]') AS counts
     FROM s`,
    values: [s.accountId, s.size, s.from, s.to, s.types],
  });
  const row = rows[0]!;
  return { ru: row.ru, oldest: row.oldest, counts: row.counts.map(([bucket, type, n]) => ({ bucket, type, n })) };
}
