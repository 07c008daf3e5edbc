/**
 * A LATERAL lookup of one message by id for a row that does not know its
 * message's day (an event, a webhook notification), as SQL. Messages are
 * partitioned by day (docs/adr/0044), and a lookup by id alone probes each day
 * table's unique index (about 1.2 µs a table). Most such rows come within
 * hours of their message, so the first branch looks only in the days around
 * `near` (Unix seconds, SQL: two days before to one after, for clock skew
 * between the app and the database), pruned per row when it runs; only a row
 * it misses (a late event, a message gone) probes every day. LIMIT 1 stops at
 * the first branch's hit. LATERAL keeps it a lookup per row whatever the statistics.
 */
export function messageByIdLateral(columns: string, messageId: string, near: string): string {
  const select = `SELECT ${columns} FROM messages m WHERE m.id = ${messageId}`;
  return `LATERAL ((${select} AND m.created_at >= to_timestamp(${near} - 2 * 86400) AND m.created_at < to_timestamp(${near} + 86400))
                   UNION ALL (${select}) LIMIT 1)`;
}
