import { MAX_REPLAY } from "../contract/webhook-deliveries";
import type { Queryable } from "./database";
import { WAKE_CHANNEL } from "./notification-rows";

/**
 * The statements of sending deliveries again (lib/webhooks/replay.ts,
 * docs/contract.md §16, ADR 0410). Each turn-back is ONE row update that
 * turns finished (or held) rows back to `pending`, due at REPLAY_PER_SECOND.
 */

export const REPLAY_PER_SECOND = 50;

/** Wakes the notification workers when the transaction commits. */
export async function wakeNotificationWorkers(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`);
}

/** SQL that sets the rows chosen by `chosen` (a query of ids in order) pending again, each due at its place in line. */
function turnBack(chosen: string, singleAttempt: boolean): string {
  return `WITH c AS (
       SELECT id, row_number() OVER (ORDER BY id) - 1 AS place FROM (${chosen}) s
     )
     UPDATE webhook_notifications n
        SET status = 'pending', completed_at = NULL, single_attempt = ${singleAttempt},
            next_attempt_at = now() + floor(c.place / ${REPLAY_PER_SECOND}) * interval '1 second'
       FROM c
      WHERE n.id = c.id AND n.status IN ('delivered', 'failed', 'cancelled', 'held')
      RETURNING n.id`;
}

/** The account's webhook's status, its row locked FOR SHARE; undefined when there is none. */
export async function webhookStatusForShare(q: Queryable, accountId: string, webhookId: number): Promise<string | undefined> {
  const { rows } = await q.query<{ status: string }>(`SELECT status FROM webhooks WHERE id = $1 AND account_id = $2 FOR SHARE`, [webhookId, accountId]);
  return rows[0]?.status;
}

/** The status of one delivery of the account's webhook; undefined when there is none. */
export async function deliveryStatus(q: Queryable, accountId: string, webhookId: number, deliveryId: string): Promise<string | undefined> {
  const { rows } = await q.query<{ status: string }>(
    `SELECT status FROM webhook_notifications WHERE id = $1::bigint AND webhook_id = $2 AND account_id = $3`,
    [deliveryId, webhookId, accountId],
  );
  return rows[0]?.status;
}

/** One finished delivery pending again (a single attempt); its id, or none when it was not finished. */
export async function turnBackDelivery(q: Queryable, webhookId: number, deliveryId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    turnBack(`SELECT id FROM webhook_notifications WHERE id = $1::bigint AND webhook_id = $2 AND status IN ('delivered', 'failed', 'cancelled')`, true),
    [deliveryId, webhookId],
  );
  return rows.map((r) => r.id);
}

/**
 * The webhook's deliveries in one of the `stored` statuses created in
 * [startDate, endDate] (Unix seconds, inclusive, null for open), oldest
 * first, at most MAX_REPLAY, pending again (single attempts); their ids.
 */
export async function turnBackDeliveries(
  q: Queryable,
  webhookId: number,
  stored: string[],
  startDate: number | null,
  endDate: number | null,
): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    turnBack(
      `SELECT id FROM webhook_notifications
          WHERE webhook_id = $1 AND status = ANY ($2::text[])
            AND ($3::bigint IS NULL OR created_at >= to_timestamp($3::bigint))
            AND ($4::bigint IS NULL OR created_at < to_timestamp($4::bigint + 1))
          ORDER BY id LIMIT ${MAX_REPLAY}
          FOR UPDATE SKIP LOCKED`,
      true,
    ),
    [webhookId, stored, startDate, endDate],
  );
  return rows.map((r) => r.id);
}

/** Locks the account's webhook FOR UPDATE; false when there is none. */
export async function lockWebhook(q: Queryable, accountId: string, webhookId: number): Promise<boolean> {
  const { rows } = await q.query<{ id: string }>(`SELECT id FROM webhooks WHERE id = $1 AND account_id = $2 FOR UPDATE`, [webhookId, accountId]);
  return rows[0] !== undefined;
}

/** Enables the webhook (if it is not) and clears its failure state. */
export async function enableWebhookRow(q: Queryable, webhookId: number): Promise<void> {
  await q.query(
    `UPDATE webhooks SET status = 'Enabled', failing_since = NULL, disabled_at = NULL, disabled_reason = '', updated_at = now()
        WHERE id = $1 AND status <> 'Enabled'`,
    [webhookId],
  );
}

/** The webhook's held deliveries pending again, resuming their retry schedule; their ids. */
export async function turnBackHeld(q: Queryable, webhookId: number): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    turnBack(`SELECT id FROM webhook_notifications WHERE webhook_id = $1 AND status = 'held' ORDER BY id FOR UPDATE`, false),
    [webhookId],
  );
  return rows.map((r) => r.id);
}
