import type { PgBoss } from "../queue/boss";
import type { EventType } from "../contract/events";
import type { Tx } from "../storage/transaction";
import { enqueueNotifications } from "./notification-outbox";

export interface NewEvent {
  accountId: string;
  messageId: string;
  type: EventType;
  recipient: string;
  reason?: string;
  /** Unix seconds; defaults to now. */
  loggedAt?: number;
  ip?: string;
  geo?: { city: string; region: string; country: string };
  url?: string;
  details?: Record<string, unknown>;
}

export interface LoggedEvent extends NewEvent {
  id: number;
  loggedAt: number;
  logLevel: string;
}

/** CONTRACT.md: `info`; `warn` for rejected and complained; `error` for failed. */
export function logLevelOf(type: EventType): string {
  if (type === "failed") return "error";
  if (type === "rejected" || type === "complained") return "warn";
  return "info";
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Appends events and, in the same transaction, the webhook notifications they
 * cause (an outbox): no event without its notifications, no notification for
 * an event that was rolled back.
 */
export async function logEvents(tx: Tx, boss: PgBoss, events: NewEvent[]): Promise<LoggedEvent[]> {
  if (events.length === 0) return [];
  const logged = events.map((e) => ({ ...e, loggedAt: e.loggedAt ?? nowSeconds(), logLevel: logLevelOf(e.type) }));
  // Constant text whatever the number of events, so a named (prepared) statement.
  const { rows: ids } = await tx.client.query<{ id: number }>({
    name: "mailroom_log_events",
    text: `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient, reason, ip, geo_city, geo_region, geo_country, url, details)
           SELECT account_id, message_id, type, logged_at, log_level, recipient, reason, ip, geo_city, geo_region, geo_country, url, details
           FROM jsonb_to_recordset($1::jsonb) AS e(account_id uuid, message_id uuid, type text, logged_at bigint, log_level text,
             recipient text, reason text, ip text, geo_city text, geo_region text, geo_country text, url text, details jsonb, i int)
           ORDER BY i
           RETURNING id`,
    values: [
      JSON.stringify(
        logged.map((e, i) => ({
          i,
          account_id: e.accountId,
          message_id: e.messageId,
          type: e.type,
          logged_at: e.loggedAt,
          log_level: e.logLevel,
          recipient: e.recipient,
          reason: e.reason ?? "",
          ip: e.ip ?? null,
          geo_city: e.geo?.city ?? null,
          geo_region: e.geo?.region ?? null,
          geo_country: e.geo?.country ?? null,
          url: e.url ?? null,
          details: e.details ?? null,
        })),
      ),
    ],
  });
  const withIds = logged.map((e, i) => ({ ...e, id: ids[i]!.id }));
  await enqueueNotifications(tx, boss, withIds);
  return withIds;
}
