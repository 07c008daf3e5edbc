import type { PgBoss } from "../queue/boss";
import type { EventType } from "../storage/schema";
import type { Tx } from "../storage/transaction";
import { enqueueNotifications } from "../webhooks/fan-out";

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
  const cols = 13;
  const values: unknown[] = [];
  const rows: string[] = [];
  const logged = events.map((e) => ({ ...e, loggedAt: e.loggedAt ?? nowSeconds(), logLevel: logLevelOf(e.type) }));
  logged.forEach((e, i) => {
    const b = i * cols;
    rows.push(`(${Array.from({ length: cols }, (_, k) => `$${b + k + 1}`).join(",")})`);
    values.push(
      e.accountId,
      e.messageId,
      e.type,
      e.loggedAt,
      e.logLevel,
      e.recipient,
      e.reason ?? "",
      e.ip ?? null,
      e.geo?.city ?? null,
      e.geo?.region ?? null,
      e.geo?.country ?? null,
      e.url ?? null,
      e.details ? JSON.stringify(e.details) : null,
    );
  });
  const { rows: ids } = await tx.client.query<{ id: number }>(
    `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient, reason, ip, geo_city, geo_region, geo_country, url, details)
     VALUES ${rows.join(",")} RETURNING id`,
    values,
  );
  const withIds = logged.map((e, i) => ({ ...e, id: ids[i]!.id }));
  await enqueueNotifications(tx, boss, withIds);
  return withIds;
}
