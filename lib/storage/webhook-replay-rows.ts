import { MAX_REPLAY, RESENDS_PER_HOUR } from "../contract/webhook-deliveries";
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

/** How long a succeeded delivery a retry or replay sent again is skipped by replays (docs/adr/0411). */
export const RESEND_WINDOW_SECONDS = 3600;

/**
 * SQL that sets the rows chosen by `chosen` (a query of ids in order) pending again, each due at its
 * place in line. A resend (retry, replay) records when (`resent_at`); an enabling resumes a schedule.
 */
function turnBack(chosen: string, singleAttempt: boolean): string {
  return `WITH c AS (
       SELECT id, row_number() OVER (ORDER BY id) - 1 AS place FROM (${chosen}) s
     )
     UPDATE webhook_notifications n
        SET status = 'pending', completed_at = NULL, single_attempt = ${singleAttempt},${singleAttempt ? " resent_at = now()," : ""}
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
 * first, at most `limit` (at most MAX_REPLAY), pending again (single
 * attempts); their ids. A delivered row resent within RESEND_WINDOW_SECONDS
 * is skipped: a replay of succeeded ones repeated sends nothing again.
 */
export async function turnBackDeliveries(
  q: Queryable,
  webhookId: number,
  stored: string[],
  startDate: number | null,
  endDate: number | null,
  limit: number,
): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    turnBack(
      `SELECT id FROM webhook_notifications
          WHERE webhook_id = $1 AND status = ANY ($2::text[])
            AND ($3::bigint IS NULL OR created_at >= to_timestamp($3::bigint))
            AND ($4::bigint IS NULL OR created_at < to_timestamp($4::bigint + 1))
            AND (status <> 'delivered' OR resent_at IS NULL OR resent_at <= now() - ${RESEND_WINDOW_SECONDS} * interval '1 second')
          ORDER BY id LIMIT $5
          FOR UPDATE SKIP LOCKED`,
      true,
    ),
    [webhookId, stored, startDate, endDate, Math.max(0, Math.min(limit, MAX_REPLAY))],
  );
  return rows.map((r) => r.id);
}

/**
 * The deliveries the account's retries and replays may still queue in the
 * current UTC hour (RESENDS_PER_HOUR less those queued), and the seconds
 * until the next hour starts (at least 1). Takes the account's window row
 * until the transaction ends, so that its resends count in turn.
 */
export async function takeResendWindow(q: Queryable, accountId: string): Promise<{ left: number; retryAfterSeconds: number }> {
  const { rows } = await q.query<{ queued: number; retry_after: number }>(
    `INSERT INTO webhook_resend_windows AS w (account_id, window_start, queued)
          VALUES ($1, floor(extract(epoch FROM now()) / 3600)::bigint * 3600, 0)
     ON CONFLICT (account_id) DO UPDATE
          SET queued = CASE WHEN w.window_start = EXCLUDED.window_start THEN w.queued ELSE 0 END,
              window_start = EXCLUDED.window_start
     RETURNING queued, greatest(1, ceil(window_start + 3600 - extract(epoch FROM now())))::int AS retry_after`,
    [accountId],
  );
  const row = rows[0]!;
  return { left: Math.max(0, RESENDS_PER_HOUR - row.queued), retryAfterSeconds: row.retry_after };
}

/** Counts `n` deliveries queued by a retry or replay in the account's current window (taken by takeResendWindow). */
export async function countResends(q: Queryable, accountId: string, n: number): Promise<void> {
  if (n > 0) await q.query(`UPDATE webhook_resend_windows SET queued = queued + $2 WHERE account_id = $1`, [accountId, n]);
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
