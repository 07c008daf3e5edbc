import type { PgBoss } from "../queue/boss";
import { QUEUE, type NotifyJob } from "../queue/jobs";
import type { Tx } from "../storage/transaction";
import { buildEventData, webhookEventsMatching, type PayloadSource } from "./notification-payload";
import { preparedSql } from "../storage/prepared-sql";

/** Channel on which a committed fan-out wakes the notification workers (LISTEN/NOTIFY is transactional). */
export const WAKE_CHANNEL = "mailroom_webhooks";

/** An event as logged (lib/domain/event-log.ts), with what its notifications need. */
export type OutboxEvent = Omit<PayloadSource, "domain"> & { id: number; accountId: string };

/**
 * The notification outbox: for every event of a notifying type, one
 * webhook_notifications row per matching webhook of its account, plus one
 * `notify` job per row, all inside the caller's transaction (CONTRACT.md
 * "Notifications"; docs/adr/0400).
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

  // A named (prepared) statement: planning this one costs more than running it (~2 ms vs ~0.4 ms).
  const { rows } = await tx.client.query<{ id: number }>({
    name: "mailroom_webhook_fan_out",
    text: `WITH e AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS e(event_id bigint, account_id uuid, message_id uuid, names text[], payload jsonb)
     ), ins AS (
       INSERT INTO webhook_notifications (webhook_id, account_id, event_id, payload)
       SELECT w.id, w.account_id, e.event_id,
              CASE WHEN jsonb_typeof(e.payload) = 'object' THEN e.payload || jsonb_build_object('Domain', coalesce(m.from_domain, '')) ELSE 'null'::jsonb END
         FROM e
         JOIN webhooks w ON w.account_id = e.account_id AND w.event = ANY (e.names) AND w.status = 'Enabled'
         LEFT JOIN messages m ON m.id = e.message_id
        ORDER BY e.event_id, w.id
       RETURNING id
     )
     SELECT id, pg_notify('${WAKE_CHANNEL}', '') FROM ins`,
    values: [JSON.stringify(candidates)],
  });
  if (rows.length === 0) return;
  // Same transaction as the rows (tx.client), as prepared statements.
  const db = preparedSql(tx.client);
  if (rows.length === 1) {
    await boss.send(QUEUE.notify, { notificationId: rows[0]!.id } satisfies NotifyJob, { db });
    return;
  }
  await boss.insert(
    rows.map((r) => ({ name: QUEUE.notify, data: { notificationId: r.id } satisfies NotifyJob })),
    { db },
  );
}
