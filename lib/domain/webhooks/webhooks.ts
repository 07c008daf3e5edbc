import { MAX_WEBHOOKS_PER_ACCOUNT, NEVER_CALLED_AT, type WebhookEvent, type WebhookRecord } from "../../contract/webhooks";
import { lockAccountRow } from "../../storage/account-rows";
import type { Database, Queryable } from "../../storage/database";
import type { webhooks } from "../../storage/schema";
import { DEADLOCK_DETECTED, sqlStateOf } from "../../storage/sqlstate";
import { withTransaction } from "../../storage/transaction";
import {
  countWebhookRows,
  deleteWebhookRow,
  hasWebhook,
  insertWebhookRow,
  lockWebhookNotifications,
  selectWebhookAttemptRows,
  selectWebhookRow,
  selectWebhookRows,
} from "../../storage/webhook-rows";

/**
 * Webhook registrations of an account (docs/contract.md §9). Every read
 * and write is scoped to the account: another account's webhook is
 * indistinguishable from one that does not exist.
 */

export type WebhookRow = typeof webhooks.$inferSelect;

export class WebhookLimitError extends Error {
  constructor() {
    super(`An account has at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`);
    this.name = "WebhookLimitError";
  }
}

export class WebhookUrlRefusedError extends Error {
  constructor(reason: string) {
    super(`WebhookURL refused: ${reason}`);
    this.name = "WebhookUrlRefusedError";
  }
}

/**
 * Refuses a URL that may not be registered by throwing WebhookUrlRefusedError.
 * The caller injects it (lib/webhooks/destination-check.ts: the SSRF guard
 * with the server's allowPrivate setting), so the domain does not reach the network layer.
 */
export type WebhookUrlCheck = (url: string) => Promise<void>;

/**
 * Registers a webhook. The URL (already an absolute http(s) URL of at most
 * 2048 characters, see lib/contract/webhooks.ts) must pass `checkUrl`
 * (a public address unless private destinations are allowed). The account row is locked while
 * counting, so concurrent creations cannot pass the cap together.
 */
export async function createWebhook(
  database: Database,
  accountId: string,
  input: { event: WebhookEvent; url: string },
  checkUrl: WebhookUrlCheck,
): Promise<WebhookRow> {
  await checkUrl(input.url);
  return withTransaction(database, async (tx) => {
    await lockAccountRow(tx, accountId);
    if ((await countWebhookRows(tx, accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) throw new WebhookLimitError();
    return insertWebhookRow(tx, accountId, input);
  });
}

/** The account's webhooks, ordered by WebhookID. */
export async function listWebhooks(q: Queryable, accountId: string): Promise<WebhookRow[]> {
  return selectWebhookRows(q, accountId);
}

export async function getWebhook(q: Queryable, accountId: string, webhookId: number): Promise<WebhookRow | undefined> {
  if (!Number.isSafeInteger(webhookId) || webhookId <= 0) return undefined;
  return selectWebhookRow(q, accountId, webhookId);
}

/**
 * Deletes a webhook of the account; false when there is none with that id.
 * Its notifications (pending retries included) and attempt log go with it
 * (ON DELETE CASCADE), so nothing more is sent to it: a queued job that
 * still names one of them finds no row and ends.
 *
 * Lock order: the dispatcher records an attempt by updating its notification
 * and then inserting into webhook_attempts, whose foreign key share-locks the
 * webhook. A bare DELETE locks the webhook first and its cascade then waits
 * for the notification: a deadlock, and a 500. So the notifications are
 * locked first (id order), then the webhook; the rare deadlock left (a
 * notification made and attempted while this runs) is retried.
 */
export async function deleteWebhook(database: Database, accountId: string, webhookId: number): Promise<boolean> {
  if (!Number.isSafeInteger(webhookId) || webhookId <= 0) return false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(database, async (tx) => {
        if (!(await hasWebhook(tx, accountId, webhookId))) return false;
        await lockWebhookNotifications(tx, webhookId);
        return deleteWebhookRow(tx, accountId, webhookId);
      });
    } catch (err) {
      if (attempt >= 3 || sqlStateOf(err) !== DEADLOCK_DETECTED) throw err;
    }
  }
}

/** A webhook as GET /webhooks renders it (docs/contract.md §9.2: digit strings, ISO times with ms, placeholder date). */
export function renderWebhook(row: WebhookRow): WebhookRecord {
  return {
    WebhookID: String(row.id),
    CreatedAt: row.createdAt.toISOString(),
    UpdatedAt: row.updatedAt.toISOString(),
    Status: row.status === "Disabled" ? "Disabled" : "Enabled",
    WebhookURL: row.url,
    Event: row.event,
    LastResponseCode: String(row.lastResponseCode),
    LastResponseBody: row.lastResponseBody,
    LastResponseAt: row.lastResponseAt ? row.lastResponseAt.toISOString() : NEVER_CALLED_AT,
    LastResponseTryCounter: String(row.lastResponseTryCounter),
    ...(row.status === "Disabled" && { DisabledReason: row.disabledReason, DisabledAt: (row.disabledAt ?? row.updatedAt).toISOString() }),
  };
}

export interface WebhookAttempt {
  id: number;
  notificationId: number;
  attemptedAt: string;
  /** 1 for the first attempt of its notification, 2 for the first retry, ... */
  tryNumber: number;
  /** HTTP status; 0 when no HTTP answer came. */
  statusCode: number;
  durationMs: number;
  /** First 1,000 characters of the answer. */
  bodyExcerpt: string;
  /** Why there was no answer (timeout, refused connection, SSRF refusal), or why it was not retried. */
  error: string | null;
}

/**
 * The delivery log of one webhook of the account, newest first (the
 * dashboard's webhook page). Pages with `beforeId` (the last id seen).
 * Undefined when the account has no such webhook.
 */
export async function listWebhookAttempts(
  q: Queryable,
  accountId: string,
  webhookId: number,
  options: { limit?: number; beforeId?: number } = {},
): Promise<WebhookAttempt[] | undefined> {
  if (!(await getWebhook(q, accountId, webhookId))) return undefined;
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 500);
  const rows = await selectWebhookAttemptRows(q, webhookId, { limit, beforeId: options.beforeId });
  return rows.map((r) => ({
    id: r.id,
    notificationId: r.notificationId,
    attemptedAt: r.attemptedAt.toISOString(),
    tryNumber: r.tryNumber,
    statusCode: r.statusCode,
    durationMs: r.durationMs,
    bodyExcerpt: r.bodyExcerpt,
    error: r.error,
  }));
}
