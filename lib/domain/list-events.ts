import type { EventRecord, EventsResponse, EventType, MessageHeaders } from "../contract/events";
import { DEFAULT_RETRIEVE_COUNT } from "../contract/events";
import type pg from "pg";
import type { EventRow } from "../storage/event-rows";
import { statementName } from "../storage/prepared-sql";
import { isUuid } from "./accounts";
import { FAR_FUTURE, HOUR, type EventReads } from "./event-counts";

/**
 * GET /events (docs/contract.md §7): the account's events, newest first (LoggedAt
 * descending, then insertion order descending), with the total count of all
 * matches. Each filter combination is served by an index of 0001_core.sql:
 * (account, logged_at, id), (account, type, logged_at, id),
 * (account, message_id, logged_at, id).
 */
export interface EventFilter {
  startDate?: number;
  endDate?: number;
  type?: EventType;
  messageId?: string;
  startFrom?: number;
  retrieveCount?: number;
}

const ENGAGEMENT = new Set<EventType>(["opened", "clicked", "unsubscribed"]);

const EMPTY_HEADERS: MessageHeaders = { MessageId: "", From: [], ReplyTo: [], To: [], Cc: [], Bcc: [], Subject: "" };

/** An event row as read, with its message's columns joined. */
interface Row extends Omit<EventRow, "account_id" | "details"> {
  id: number;
  headers: MessageHeaders | null;
  size: number | null;
  transport: string | null;
  tags: string[] | null;
}

/** The first second inside account $1's retention period (an init plan: partitions before it are pruned at run time). */
export const RETAINED_FROM = "(SELECT extract(epoch FROM now())::bigint - retention_days::bigint * 86400 FROM accounts WHERE id = $1)";

export function whereClause(accountId: string, f: EventFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  // Read-time retention (docs/contract.md §7.4, docs/adr/0031): rows past the account's
  // retention may wait for their day's partition to be dropped, but are never returned.
  const conds = ["e.account_id = $1", `e.logged_at >= ${RETAINED_FROM}`];
  if (f.type) conds.push(`e.type = $${params.push(f.type)}`);
  if (f.messageId) conds.push(`e.message_id = $${params.push(f.messageId.toLowerCase())}::uuid`);
  if (f.startDate !== undefined) conds.push(`e.logged_at >= $${params.push(f.startDate)}`);
  if (f.endDate !== undefined) conds.push(`e.logged_at <= $${params.push(f.endDate)}`);
  return { sql: conds.join(" AND "), params };
}

export async function listEvents(
  reads: EventReads,
  accountId: string,
  f: EventFilter,
  onError: (err: unknown) => void = () => {},
): Promise<EventsResponse> {
  // An id that is no UUID names no message (and must not reach a uuid comparison).
  if (f.messageId !== undefined && !isUuid(f.messageId)) return { TotalRecords: 0, Events: [] };
  const { sql, params } = whereClause(accountId, f);
  const limit = f.retrieveCount ?? DEFAULT_RETRIEVE_COUNT;
  const offset = f.startFrom ?? 0;
  const [page, count] = await Promise.all([
    reads.database.pool.query<Row>(
      prepared(`SELECT e.id, e.type, e.logged_at, e.log_level, e.recipient, e.reason, e.ip, e.geo_city, e.geo_region, e.geo_country, e.url,
              e.message_id, m.headers, m.size, m.transport, m.tags
       FROM events e LEFT JOIN messages m ON m.id = e.message_id
       WHERE ${sql}
       ORDER BY e.logged_at DESC, e.id DESC
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset]),
    ),
    countEvents(reads, accountId, f, onError),
  ]);
  return { TotalRecords: count, Events: page.rows.map(toRecord) };
}

/**
 * A named statement: there are a few dozen filter shapes, and planning the
 * count costs more than running it, so each connection prepares each shape once.
 */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  return { name: statementName(text), text, values };
}

/** TotalRecords: hourly summaries for the long past, rows for the rest (lib/domain/event-counts.ts). */
export async function countEvents({ database, rollups }: EventReads, accountId: string, f: EventFilter, onError: (err: unknown) => void): Promise<number> {
  const { sql, params } = whereClause(accountId, f);
  if (f.messageId !== undefined) {
    // One message's events: few rows, counted directly.
    const { rows } = await database.pool.query<{ n: number }>(prepared(`SELECT count(*)::int AS n FROM events e WHERE ${sql}`, params));
    return rows[0]!.n;
  }
  // One round trip: the summary state, the span [a, b) it covers (summarisedSpan, in SQL) and the count.
  const n = params.length;
  const lo = `$${n + 1}::bigint`;
  const hi = `$${n + 2}::bigint`;
  const typeCond = f.type ? ` AND type = $${n + 3}` : "";
  const { rows } = await database.pool.query<{ n: number; ru: number; oldest: number | null }>(
    prepared(`WITH v AS MATERIALIZED (
       SELECT coalesce((SELECT rolled_until FROM event_rollup_state WHERE account_id = $1), 0) AS ru,
              (SELECT logged_at FROM events WHERE account_id = $1 ORDER BY logged_at, id LIMIT 1) AS oldest,
              coalesce((SELECT extract(epoch FROM now())::bigint - retention_days::bigint * 86400 FROM accounts WHERE id = $1), 0) AS rf
     ), w AS MATERIALIZED (
       SELECT ru, oldest,
              greatest(${lo} + (${HOUR} - ${lo} % ${HOUR}) % ${HOUR}, oldest - oldest % ${HOUR} + ${HOUR}, rf + (${HOUR} - rf % ${HOUR}) % ${HOUR}) AS a0,
              least(${hi} + 1 - (${hi} + 1) % ${HOUR}, ru) AS b0
       FROM v
     ), s AS MATERIALIZED (
       SELECT ru, oldest,
              CASE WHEN oldest IS NOT NULL AND a0 < b0 THEN a0 ELSE ${hi} + 1 END AS a,
              CASE WHEN oldest IS NOT NULL AND a0 < b0 THEN b0 ELSE ${hi} + 1 END AS b
       FROM w
     )
     SELECT s.ru, s.oldest,
            coalesce((SELECT sum(n) FROM event_hour_counts WHERE account_id = $1 AND hour >= s.a AND hour < s.b${typeCond}), 0)::bigint
          + (SELECT count(*) FROM events e WHERE ${sql} AND e.logged_at < s.a)
          + (SELECT count(*) FROM events e WHERE ${sql} AND e.logged_at >= s.b) AS n
     FROM s`,
    [...params, f.startDate ?? 0, f.endDate ?? FAR_FUTURE, ...(f.type ? [f.type] : [])]),
  );
  rollups.schedule(accountId, { rolledUntil: rows[0]!.ru, oldest: rows[0]!.oldest }, onError);
  return rows[0]!.n;
}

/** One event record, members in the spec's order, then the additive Url, Tags, EventID. */
export function toRecord(r: Row): EventRecord {
  const engagement = ENGAGEMENT.has(r.type);
  return {
    Event: r.type,
    LoggedAt: r.logged_at,
    LogLevel: r.log_level as EventRecord["LogLevel"],
    Message: {
      Headers: r.headers ?? { ...EMPTY_HEADERS, MessageId: r.message_id },
      Size: r.size ?? 0,
      Transport: (r.transport ?? "api") as EventRecord["Message"]["Transport"],
    },
    Recipient: r.recipient,
    Reason: r.reason,
    ...(engagement && {
      Ip: r.ip ?? "",
      Geolocation: { City: r.geo_city ?? "", Region: r.geo_region ?? "", Country: r.geo_country ?? "" },
    }),
    ...(r.type === "clicked" && { Url: r.url ?? "" }),
    Tags: r.tags ?? [],
    EventID: String(r.id),
  };
}
