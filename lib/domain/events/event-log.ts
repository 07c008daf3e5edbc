import type { PgBoss } from "../../queue/boss";
import type { EventType } from "../../contract/events";
import { insertEvents } from "../../storage/event-rows";
import type { Tx } from "../../storage/transaction";
import { enqueueNotifications } from "../webhooks/notification-outbox";

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

/** docs/contract.md §7.3: `info`; `warn` for rejected and complained; `error` for failed. */
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
  const ids = await insertEvents(
    tx,
    logged.map((e) => ({
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
  );
  const withIds = logged.map((e, i) => ({ ...e, id: ids[i]! }));
  await enqueueNotifications(tx, boss, withIds);
  return withIds;
}
