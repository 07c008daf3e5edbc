import type pg from "pg";
import type { EventType, MessageHeaders } from "../contract/events";
import type { Queryable } from "./database";
import { summarisedSpanCtes } from "./event-count-rows";
import { statementName } from "./prepared-sql";
import { RETAINED_FROM } from "./retention-sql";

/** One row of `events` as written (the columns of migration 0001 and later). */
export interface EventRow {
  account_id: string;
  message_id: string;
  type: EventType;
  logged_at: number;
  log_level: string;
  recipient: string;
  reason: string;
  ip: string | null;
  geo_city: string | null;
  geo_region: string | null;
  geo_country: string | null;
  url: string | null;
  details: Record<string, unknown> | null;
}

/**
 * Appends events in one statement and returns their ids in the order given
 * (lib/domain/events/event-log.ts decides what an event is; this is only the SQL).
 * Constant text whatever the number of events, so a named (prepared) statement.
 */
export async function insertEvents(q: Queryable, rows: EventRow[]): Promise<number[]> {
  const { rows: ids } = await q.query<{ id: number }>({
    name: "mailroom_log_events",
    text: `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient, reason, ip, geo_city, geo_region, geo_country, url, details)
           SELECT account_id, message_id, type, logged_at, log_level, recipient, reason, ip, geo_city, geo_region, geo_country, url, details
           FROM jsonb_to_recordset($1::jsonb) AS e(account_id uuid, message_id uuid, type text, logged_at bigint, log_level text,
             recipient text, reason text, ip text, geo_city text, geo_region text, geo_country text, url text, details jsonb, i int)
           ORDER BY i
           RETURNING id`,
    values: [JSON.stringify(rows.map((r, i) => ({ i, ...r })))],
  });
  return ids.map((r) => r.id);
}

/**
 * What GET /events filters on (docs/contract.md §7); each combination is served by an index of
 * 0001_core.sql, the recipient by events_account_recipient_time (migration 1015, docs/adr/0051).
 */
export interface EventRowFilter {
  startDate?: number;
  endDate?: number;
  type?: EventType;
  messageId?: string;
  /** Compared case-insensitively (both sides lower()). */
  recipient?: string;
  /** The messages the Subject fragment matched (lib/storage/message-search-rows.ts). */
  messageIds?: string[];
}

/** An event row as read, with its message's columns joined. */
export interface ListedEventRow extends Omit<EventRow, "account_id" | "details"> {
  id: number;
  headers: MessageHeaders | null;
  size: number | null;
  transport: string | null;
  tags: string[] | null;
  /** A delivered copy's TLS verdict (details.tls; lib/delivery/tls-policy/tls-result.ts). */
  tls: { policy: string; mode?: string; version?: string; cipher?: string; verified: boolean; failure?: string } | null;
}

export function whereClause(accountId: string, f: EventRowFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  // Read-time retention (docs/contract.md §7.5, docs/adr/0031, 0515): rows before the account's
  // retention floor may wait for their day's partition to be dropped, but are never returned.
  const conds = ["e.account_id = $1", `e.logged_at >= ${RETAINED_FROM}`];
  if (f.type) conds.push(`e.type = $${params.push(f.type)}`);
  if (f.messageId) conds.push(`e.message_id = $${params.push(f.messageId.toLowerCase())}::uuid`);
  if (f.recipient !== undefined) conds.push(`lower(e.recipient) = lower($${params.push(f.recipient)})`);
  if (f.messageIds) conds.push(`e.message_id = ANY ($${params.push(f.messageIds)}::uuid[])`);
  if (f.startDate !== undefined) conds.push(`e.logged_at >= $${params.push(f.startDate)}`);
  if (f.endDate !== undefined) conds.push(`e.logged_at <= $${params.push(f.endDate)}`);
  return { sql: conds.join(" AND "), params };
}

/**
 * A named statement: there are a few dozen filter shapes, and planning the
 * count costs more than running it, so each connection prepares each shape once.
 */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  return { name: statementName(text), text, values };
}

/**
 * A page of the account's matching events, newest first (LoggedAt descending,
 * then insertion order descending), with their messages' columns, found by
 * event_page_messages (migration 1004): messages are partitioned by day
 * (docs/adr/0044), and a join here would plan every day table into each plan.
 */
export async function selectEventPage(q: Queryable, accountId: string, f: EventRowFilter, limit: number, offset: number): Promise<ListedEventRow[]> {
  const { sql, params } = whereClause(accountId, f);
  const { rows } = await q.query<ListedEventRow>(
    prepared(
      `WITH page AS (
         SELECT e.id, e.type, e.logged_at, e.log_level, e.recipient, e.reason, e.ip, e.geo_city, e.geo_region, e.geo_country, e.url, e.message_id, e.details->'tls' AS tls
           FROM events e
          WHERE ${sql}
          ORDER BY e.logged_at DESC, e.id DESC
          LIMIT $${params.length + 1} OFFSET $${params.length + 2}
       )
       SELECT page.*, m.headers, m.size, m.transport, m.tags
         FROM page
         LEFT JOIN event_page_messages(ARRAY(SELECT DISTINCT message_id FROM page), (SELECT min(logged_at) FROM page), (SELECT max(logged_at) FROM page)) m
           ON m.id = page.message_id
        ORDER BY page.logged_at DESC, page.id DESC`,
      [...params, limit, offset],
    ),
  );
  return rows;
}

/**
 * A page of the events of a few messages (`f.messageIds`, a Subject's matches) and the number of
 * them, in one statement (docs/adr/0054): `matched` reads every event of those messages by
 * (account, message_id, logged_at, id) and is sorted, paged and counted as it is. Planned as one
 * query, a page of LIMIT rows would be read newest first by (account, logged_at, id), filtering
 * every event of every day for the few messages' (seconds at 10 million events). The caller
 * bounds `f.startDate` by the messages' days, so only the day tables that can hold their events are read.
 */
export async function selectMessagesEventPage(
  q: Queryable,
  accountId: string,
  f: EventRowFilter,
  limit: number,
  offset: number,
): Promise<{ rows: ListedEventRow[]; total: number }> {
  const { sql, params } = whereClause(accountId, f);
  const { rows } = await q.query<ListedEventRow & { total: number }>(
    prepared(
      `WITH matched AS MATERIALIZED (
         SELECT e.id, e.type, e.logged_at, e.log_level, e.recipient, e.reason, e.ip, e.geo_city, e.geo_region, e.geo_country, e.url, e.message_id, e.details->'tls' AS tls
           FROM events e
          WHERE ${sql}
       ), page AS (
         SELECT * FROM matched ORDER BY logged_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}
       )
       SELECT (SELECT count(*) FROM matched)::int AS total, p.*
         FROM (SELECT 1) one
         LEFT JOIN (SELECT page.*, m.headers, m.size, m.transport, m.tags
                      FROM page
                      LEFT JOIN event_page_messages(ARRAY(SELECT DISTINCT message_id FROM page), (SELECT min(logged_at) FROM page), (SELECT max(logged_at) FROM page)) m
                        ON m.id = page.message_id) p ON true
        ORDER BY p.logged_at DESC, p.id DESC`,
      [...params, limit, offset],
    ),
  );
  const total = rows[0]?.total ?? 0;
  return { rows: rows.filter((r) => r.id !== null).map(({ total: _, ...r }) => r), total };
}

/** The number of matching events, counted from the rows. */
export async function countEventRows(q: Queryable, accountId: string, f: EventRowFilter): Promise<number> {
  const { sql, params } = whereClause(accountId, f);
  const { rows } = await q.query<{ n: number }>(prepared(`SELECT count(*)::int AS n FROM events e WHERE ${sql}`, params));
  return rows[0]!.n;
}

/**
 * The number of matching events in [startDate, endDate] (`far` when open),
 * in one round trip: the summary state, the span [a, b) it covers
 * (lib/domain/events/event-counts.ts `summarisedSpan`, in SQL) and the count,
 * hourly summaries for [a, b) and rows for the rest. Also the state read,
 * so the caller can bring the summaries forward.
 */
export async function countEventsSummarised(
  q: Queryable,
  accountId: string,
  f: EventRowFilter,
  far: number,
): Promise<{ n: number; ru: number; oldest: number | null }> {
  const { sql, params } = whereClause(accountId, f);
  const n = params.length;
  const lo = `$${n + 1}::bigint`;
  const hi = `$${n + 2}::bigint`;
  const typeCond = f.type ? ` AND type = $${n + 3}` : "";
  const { rows } = await q.query<{ n: number; ru: number; oldest: number | null }>(
    prepared(
      `WITH ${summarisedSpanCtes(lo, hi)}
     SELECT s.ru, s.oldest,
            coalesce((SELECT sum(n) FROM event_hour_counts WHERE account_id = $1 AND hour >= s.a AND hour < s.b${typeCond}), 0)::bigint
          + (SELECT count(*) FROM events e WHERE ${sql} AND e.logged_at < s.a)
          + (SELECT count(*) FROM events e WHERE ${sql} AND e.logged_at >= s.b) AS n
     FROM s`,
      [...params, f.startDate ?? 0, f.endDate ?? far, ...(f.type ? [f.type] : [])],
    ),
  );
  return rows[0]!;
}

/** Whether the recipient of the message already has an event of this type. */
export async function hasRecipientEvent(q: Queryable, accountId: string, messageId: string, type: EventType, recipient: string): Promise<boolean> {
  const { rowCount } = await q.query("SELECT 1 FROM events WHERE account_id = $1 AND message_id = $2 AND type = $3 AND recipient = $4 LIMIT 1", [
    accountId,
    messageId,
    type,
    recipient,
  ]);
  return !!rowCount;
}
