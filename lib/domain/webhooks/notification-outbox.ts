import { enqueueMany, type PgBoss } from "../../queue/boss";
import { notifyQueue } from "../../jobs/notify";
import type { Tx } from "../../storage/transaction";
import { buildEventData, webhookEventsMatching, type PayloadSource } from "./notification-payload";
import { insertNotifications } from "../../storage/notification-rows";
import { preparedSql } from "../../storage/prepared-sql";

/** An event as logged (lib/domain/events/event-log.ts), with what its notifications need. */
export type OutboxEvent = Omit<PayloadSource, "domain"> & { id: number; accountId: string };

/**
 * The notification outbox: for every event of a notifying type, one
 * webhook_notifications row per matching webhook of its account, plus one
 * `notify` job per row, all inside the caller's transaction (docs/contract.md
 * §10; docs/adr/0400).
 *
 * Cost: `accepted` events (the send path) return before any query. Any
 * other batch costs ONE statement that finds the matching webhooks through
 * the webhooks_account index, inserts the rows (EventData with the
 * message's sender domain) and, on commit, wakes the workers; an account
 * without webhooks therefore pays one indexed lookup that returns nothing.
 * There is no cache, so a webhook created or deleted in another process
 * takes effect at once. Jobs are written only when rows were.
 */
export async function enqueueNotifications(tx: Tx, boss: PgBoss, events: OutboxEvent[]): Promise<void> {
  const candidates = [];
  for (const e of events) {
    const names = webhookEventsMatching(e.type);
    if (names.length === 0) continue;
    // An event whose data cannot be mapped must not fail the transaction that logs it (a delivery
    // outcome, an open...): its notification is stored without a payload and the dispatcher
    // records it as a failed attempt (lib/webhooks/dispatcher.ts).
    let payload: ReturnType<typeof buildEventData> | null;
    try {
      payload = buildEventData({ ...e, domain: "" });
    } catch {
      payload = null;
    }
    candidates.push({ event_id: e.id, account_id: e.accountId, message_id: e.messageId, names, payload });
  }
  if (candidates.length === 0) return;

  const ids = await insertNotifications(tx, candidates);
  if (ids.length === 0) return;
  // Same transaction as the rows (tx), as prepared statements.
  await enqueueMany(boss, notifyQueue, ids.map((id) => ({ payload: { notificationId: id } })), preparedSql(tx));
}
