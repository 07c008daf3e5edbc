import type pg from "pg";

/** Channel on which a committed fan-out wakes the notification workers (LISTEN/NOTIFY is transactional). */
export const WAKE_CHANNEL = "mailroom_webhooks";

/** An event that notifies, as lib/domain/notification-outbox.ts maps it. */
export interface NotificationCandidate {
  event_id: number;
  account_id: string;
  message_id: string;
  /** The stored `webhooks.event` values it matches. */
  names: string[];
  /** Its EventData without Domain, or null when it could not be mapped. */
  payload: unknown;
}

/**
 * Inserts one webhook_notifications row per webhook of the event's account
 * whose event matches (the payload gets the message's sender domain), wakes
 * the workers on commit, and returns the ids of the rows to send. A
 * disabled webhook's row is `held`: kept, not sent, until it is re-enabled
 * or its retention period ends (docs/contract.md §16).
 * A named (prepared) statement: planning this one costs more than running it (~2 ms vs ~0.4 ms).
 */
export async function insertNotifications(client: Pick<pg.PoolClient, "query">, candidates: NotificationCandidate[]): Promise<number[]> {
  const { rows } = await client.query<{ id: number }>({
    name: "mailroom_webhook_fan_out",
    text: `WITH e AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS e(event_id bigint, account_id uuid, message_id uuid, names text[], payload jsonb)
     ), ins AS (
       INSERT INTO webhook_notifications (webhook_id, account_id, event_id, payload, status, completed_at)
       SELECT w.id, w.account_id, e.event_id,
              CASE WHEN jsonb_typeof(e.payload) = 'object' THEN e.payload || jsonb_build_object('Domain', coalesce(m.from_domain, '')) ELSE 'null'::jsonb END,
              CASE WHEN w.status = 'Enabled' THEN 'pending' ELSE 'held' END,
              CASE WHEN w.status = 'Enabled' THEN NULL ELSE now() END
         FROM e
         JOIN webhooks w ON w.account_id = e.account_id AND w.event = ANY (e.names)
         LEFT JOIN messages m ON m.id = e.message_id
        ORDER BY e.event_id, w.id
       RETURNING id, status
     )
     SELECT id, pg_notify('${WAKE_CHANNEL}', '') FROM ins WHERE status = 'pending'`,
    values: [JSON.stringify(candidates)],
  });
  return rows.map((r) => r.id);
}
