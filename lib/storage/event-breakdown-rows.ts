import type { EventType } from "../contract/events";
import { HOUR, summarisedSpanCtes } from "./event-count-rows";
import { longStatement, type Queryable } from "./database";
import type { Tx } from "./transaction";

/**
 * The SQL of the hourly breakdowns (migration 1014, docs/adr/0517): event counts per tag,
 * recipient domain and sender domain, summarised with event_hour_counts (same transaction,
 * same span) and read from the summaries only.
 */

export const BREAKDOWN_DIMENSIONS = ["tag", "recipientDomain", "senderDomain"] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

/** The values kept per dimension, hour and pass; the rest are added under '' ("Other"). */
export const VALUES_PER_HOUR = 50;

/**
 * Adds the account's events of [from, to) to their hours' breakdown rows. A message's tags
 * and sender domain come from its row (created before its events: the partitions after `to`
 * are pruned); the recipient's domain from the event, lower-cased.
 */
export async function addHourBreakdowns(tx: Tx, accountId: string, from: number, to: number): Promise<void> {
  await tx.query(
    longStatement(
      `WITH e AS MATERIALIZED (
       SELECT ev.logged_at - ev.logged_at % ${HOUR} AS hour, ev.type,
              lower(substr(ev.recipient, strpos(ev.recipient, '@') + 1)) AS rdomain, lower(m.from_domain) AS sdomain, m.tags
       FROM events ev
       LEFT JOIN messages m ON m.id = ev.message_id AND m.account_id = ev.account_id AND m.created_at < to_timestamp($3)
       WHERE ev.account_id = $1 AND ev.logged_at >= $2 AND ev.logged_at < $3
     ), d AS MATERIALIZED (
       SELECT hour, dimension, value, type, count(*)::bigint AS n FROM (
         SELECT hour, 'recipientDomain' AS dimension, rdomain AS value, type FROM e WHERE strpos(rdomain, '.') > 0
         UNION ALL
         SELECT hour, 'senderDomain', sdomain, type FROM e WHERE sdomain <> ''
         UNION ALL
         SELECT hour, 'tag', t, type FROM e CROSS JOIN LATERAL unnest(e.tags) AS t WHERE t <> ''
       ) x GROUP BY 1, 2, 3, 4
     ), r AS (
       SELECT hour, dimension, value, row_number() OVER (PARTITION BY hour, dimension ORDER BY sum(n) DESC, value) AS rk
       FROM d GROUP BY 1, 2, 3
     )
     INSERT INTO event_hour_breakdowns (account_id, dimension, hour, value, type, n)
     SELECT $1, d.dimension, d.hour, CASE WHEN r.rk <= ${VALUES_PER_HOUR} THEN d.value ELSE '' END, d.type, sum(d.n)::bigint
     FROM d JOIN r USING (hour, dimension, value)
     GROUP BY 2, 3, 4, 5
     ON CONFLICT (account_id, dimension, hour, value, type) DO UPDATE SET n = event_hour_breakdowns.n + EXCLUDED.n`,
      [accountId, from, to],
    ),
  );
}

export interface BreakdownCounts {
  /** The summary state the counts were read with (the caller brings the summaries forward). */
  ru: number;
  oldest: number | null;
  /** The summarised span counted, [a, b); a === b when none. */
  a: number;
  b: number;
  counts: { value: string; type: EventType; n: number }[];
}

/**
 * Counts per value and event type of one dimension in [from, to], from the summaries alone:
 * the whole hours of the range that are summarised and intact (`summarisedSpanCtes`), in one
 * statement with the state they were read with.
 */
export async function selectBreakdownCounts(
  q: Queryable,
  s: { accountId: string; dimension: BreakdownDimension; from: number; to: number },
): Promise<BreakdownCounts> {
  const { rows } = await q.query<{ ru: number; oldest: number | null; a: number; b: number; counts: [string, EventType, number][] }>({
    name: "mailroom_breakdown_counts",
    text: `WITH ${summarisedSpanCtes("$3::bigint", "$4::bigint")}
     SELECT s.ru, s.oldest, s.a, s.b, coalesce((SELECT json_agg(json_build_array(value, type, n)) FROM (
       SELECT value, type, sum(n)::bigint AS n FROM event_hour_breakdowns
        WHERE account_id = $1 AND dimension = $2 AND hour >= s.a AND hour < s.b
        GROUP BY 1, 2) c), '[]') AS counts
     FROM s`,
    values: [s.accountId, s.dimension, s.from, s.to],
  });
  const row = rows[0]!;
  return { ru: row.ru, oldest: row.oldest, a: row.a, b: row.b, counts: row.counts.map(([value, type, n]) => ({ value, type, n })) };
}
