import type { PgBoss } from "../queue/boss";
import type { Database } from "../storage/database";
import { withTransaction, type Tx } from "../storage/transaction";
import {
  countResends,
  deliveryStatus,
  enableWebhookRow,
  lockWebhook,
  REPLAY_PER_SECOND,
  takeResendWindow,
  turnBackDeliveries,
  turnBackDelivery,
  turnBackHeld,
  wakeNotificationWorkers,
  webhookStatusForShare,
} from "../storage/webhook-replay-rows";
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
 *
 * Resends are bounded (ADR 0411): an account's retries and replays queue at
 * most RESENDS_PER_HOUR deliveries a UTC hour (ResendLimitReached past it:
 * 429), and a replay skips a succeeded delivery already resent within the
 * hour (asking again for one is a retry, by its id).
 */

export { REPLAY_PER_SECOND };

export class WebhookDisabledError extends Error {
  constructor() {
    super("The webhook is disabled: enable it first (enabling sends the deliveries kept meanwhile)");
    this.name = "WebhookDisabledError";
  }
}

/** The account's retries and replays queued RESENDS_PER_HOUR deliveries this hour: none more until the next. */
export class ResendLimitReached extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`This account's retries and replays queued their deliveries for this hour: try again in ${retryAfterSeconds} s`);
    this.name = "ResendLimitReached";
  }
}

/** What the account may still resend this hour; throws ResendLimitReached when nothing. */
async function resendsLeft(tx: Tx, accountId: string): Promise<number> {
  const window = await takeResendWindow(tx, accountId);
  if (window.left === 0) throw new ResendLimitReached(window.retryAfterSeconds);
  return window.left;
}

/** Queues the turned-back rows: due in order, REPLAY_PER_SECOND a second, with a job each and a wake-up. */
async function queue(tx: Tx, boss: PgBoss, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  await sendNotifyJobs(
    tx,
    boss,
    ids.map((id, i) => ({ notificationId: Number(id), delayMs: Math.floor(i / REPLAY_PER_SECOND) * 1000 })),
  );
  await wakeNotificationWorkers(tx);
  return ids.length;
}

/**
 * Sends one finished delivery again now (one attempt). Undefined when the
 * account's webhook has no such delivery; 0 when it is already pending.
 */
export async function retryDelivery(database: Database, boss: PgBoss, accountId: string, webhookId: number, deliveryId: string): Promise<number | undefined> {
  return withTransaction(database, async (tx) => {
    const status = await webhookStatusForShare(tx, accountId, webhookId);
    if (status === undefined) return undefined;
    if ((await deliveryStatus(tx, accountId, webhookId, deliveryId)) === undefined) return undefined;
    if (status !== "Enabled") throw new WebhookDisabledError();
    await resendsLeft(tx, accountId);
    const queued = await queue(tx, boss, await turnBackDelivery(tx, webhookId, deliveryId));
    await countResends(tx, accountId, queued);
    return queued;
  });
}

/**
 * Sends again the webhook's deliveries of a status (failed or succeeded)
 * created in [startDate, endDate] (Unix seconds, inclusive), oldest first,
 * at most MAX_REPLAY per call and what is left of the account's hour.
 * Undefined when the account has no such webhook.
 */
export async function replayDeliveries(
  database: Database,
  boss: PgBoss,
  accountId: string,
  webhookId: number,
  filter: { status: "failed" | "succeeded"; startDate?: number; endDate?: number },
): Promise<number | undefined> {
  return withTransaction(database, async (tx) => {
    const status = await webhookStatusForShare(tx, accountId, webhookId);
    if (status === undefined) return undefined;
    if (status !== "Enabled") throw new WebhookDisabledError();
    // A held row of an enabled webhook (a fan-out that raced the enabling, ADR 0410) is resent with the failed ones.
    const stored = filter.status === "succeeded" ? ["delivered"] : ["failed", "cancelled", "held"];
    const left = await resendsLeft(tx, accountId);
    const queued = await queue(tx, boss, await turnBackDeliveries(tx, webhookId, stored, clampSeconds(filter.startDate), clampSeconds(filter.endDate), left));
    await countResends(tx, accountId, queued);
    return queued;
  });
}

/**
 * Re-enables the account's webhook and sends the deliveries kept while it
 * was disabled (they resume their retry schedule). Undefined when the
 * account has no such webhook; 0 queued when it was enabled already.
 */
export async function enableWebhook(database: Database, boss: PgBoss, accountId: string, webhookId: number): Promise<number | undefined> {
  return withTransaction(database, async (tx) => {
    if (!(await lockWebhook(tx, accountId, webhookId))) return undefined;
    await enableWebhookRow(tx, webhookId);
    return queue(tx, boss, await turnBackHeld(tx, webhookId));
  });
}
