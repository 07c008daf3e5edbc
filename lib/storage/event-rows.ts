import type pg from "pg";
import type { EventType } from "../contract/events";

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
 * (lib/domain/event-log.ts decides what an event is; this is only the SQL).
 * Constant text whatever the number of events, so a named (prepared) statement.
 */
export async function insertEvents(client: Pick<pg.PoolClient, "query">, rows: EventRow[]): Promise<number[]> {
  const { rows: ids } = await client.query<{ id: number }>({
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
