import type { PgBoss } from "../queue/boss";
import type { Database } from "../storage/database";
import { withTransaction, type Tx } from "../storage/transaction";
import { MAX_REPLAY } from "../contract/webhook-deliveries";
import { WAKE_CHANNEL } from "../domain/notification-outbox";
import { clampSeconds } from "./delivery-log";
import { sendNotifyJobs } from "./notification-store";

/**
 * Sending deliveries again (docs/contract.md §16, ADR 0410): a retry of one,
 * a replay of those that match, and the kept ones of a webhook that is
 * re-enabled. Each is ONE row update that turns finished (or held) rows back
 * to `pending`: a row already pending, waiting or in flight, does not match,
 * so nothing is sent twice at once, and two replays at the same time queue
 * each row once (the second waits for the first's row locks and then finds
 * the rows pending). The same notification id, so the same `webhook-id`.
 * The dispatcher paces them per destination (its destination limiter);
 * rows are also made due at REPLAY_PER_SECOND so that a large replay does
 * not arrive all at once.
 */

export const REPLAY_PER_SECOND = 50;

export class WebhookDisabledError extends Error {
  constructor() {
    super("The webhook is disabled: enable it first (enabling sends the deliveries kept meanwhile)");
    this.name = "WebhookDisabledError";
  }
}

/** Queues the turned-back rows: due in order, REPLAY_PER_SECOND a second, with a job each and a wake-up. */
async function queue(tx: Tx, boss: PgBoss, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  await sendNotifyJobs(
    tx,
    boss,
    ids.map((id, i) => ({ notificationId: Number(id), delayMs: Math.floor(i / REPLAY_PER_SECOND) * 1000 })),
  );
  await tx.client.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`);
  return ids.length;
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

async function webhookStatus(tx: Tx, accountId: string, webhookId: number): Promise<string | undefined> {
  const { rows } = await tx.client.query<{ status: string }>(`SELECT status FROM webhooks WHERE id = $1 AND account_id = $2 FOR SHARE`, [webhookId, accountId]);
  return rows[0]?.status;
}

/**
 * Sends one finished delivery again now (one attempt). Undefined when the
 * account's webhook has no such delivery; 0 when it is already pending.
 */
export async function retryDelivery(database: Database, boss: PgBoss, accountId: string, webhookId: number, deliveryId: string): Promise<number | undefined> {
  return withTransaction(database, async (tx) => {
    const status = await webhookStatus(tx, accountId, webhookId);
    if (status === undefined) return undefined;
    const { rows: found } = await tx.client.query<{ status: string }>(
      `SELECT status FROM webhook_notifications WHERE id = $1::bigint AND webhook_id = $2 AND account_id = $3`,
      [deliveryId, webhookId, accountId],
    );
    if (!found[0]) return undefined;
    if (status !== "Enabled") throw new WebhookDisabledError();
    const { rows } = await tx.client.query<{ id: string }>(
      turnBack(`SELECT id FROM webhook_notifications WHERE id = $1::bigint AND webhook_id = $2 AND status IN ('delivered', 'failed', 'cancelled')`, true),
      [deliveryId, webhookId],
    );
    return queue(tx, boss, rows.map((r) => r.id));
  });
}

/**
 * Sends again the webhook's deliveries of a status (failed or succeeded)
 * created in [startDate, endDate] (Unix seconds, inclusive), oldest first,
 * at most MAX_REPLAY per call. Undefined when the account has no such webhook.
 */
export async function replayDeliveries(
  database: Database,
  boss: PgBoss,
  accountId: string,
  webhookId: number,
  filter: { status: "failed" | "succeeded"; startDate?: number; endDate?: number },
): Promise<number | undefined> {
  return withTransaction(database, async (tx) => {
    const status = await webhookStatus(tx, accountId, webhookId);
    if (status === undefined) return undefined;
    if (status !== "Enabled") throw new WebhookDisabledError();
    // A held row of an enabled webhook (a fan-out that raced the enabling, ADR 0410) is resent with the failed ones.
    const stored = filter.status === "succeeded" ? ["delivered"] : ["failed", "cancelled", "held"];
    const { rows } = await tx.client.query<{ id: string }>(
      turnBack(
        `SELECT id FROM webhook_notifications
          WHERE webhook_id = $1 AND status = ANY ($2::text[])
            AND ($3::bigint IS NULL OR created_at >= to_timestamp($3::bigint))
            AND ($4::bigint IS NULL OR created_at < to_timestamp($4::bigint + 1))
          ORDER BY id LIMIT ${MAX_REPLAY}
          FOR UPDATE SKIP LOCKED`,
        true,
      ),
      [webhookId, stored, clampSeconds(filter.startDate), clampSeconds(filter.endDate)],
    );
    return queue(tx, boss, rows.map((r) => r.id));
  });
}

/**
 * Re-enables the account's webhook and sends the deliveries kept while it
 * was disabled (they resume their retry schedule). Undefined when the
 * account has no such webhook; 0 queued when it was enabled already.
 */
export async function enableWebhook(database: Database, boss: PgBoss, accountId: string, webhookId: number): Promise<number | undefined> {
  return withTransaction(database, async (tx) => {
    const { rows: w } = await tx.client.query<{ id: string }>(`SELECT id FROM webhooks WHERE id = $1 AND account_id = $2 FOR UPDATE`, [webhookId, accountId]);
    if (!w[0]) return undefined;
    await tx.client.query(
      `UPDATE webhooks SET status = 'Enabled', failing_since = NULL, disabled_at = NULL, disabled_reason = '', updated_at = now()
        WHERE id = $1 AND status <> 'Enabled'`,
      [webhookId],
    );
    const { rows } = await tx.client.query<{ id: string }>(
      turnBack(`SELECT id FROM webhook_notifications WHERE webhook_id = $1 AND status = 'held' ORDER BY id FOR UPDATE`, false),
      [webhookId],
    );
    return queue(tx, boss, rows.map((r) => r.id));
  });
}
