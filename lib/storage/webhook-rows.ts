import { and, asc, count, desc, eq, lt } from "drizzle-orm";
import type { WebhookEvent } from "../contract/webhooks";
import type { Queryable } from "./database";
import { webhookAttempts, webhookNotifications, webhooks } from "./schema";
import type { Tx } from "./transaction";

/** The reads and writes of webhook registrations and their attempt log (lib/domain/webhooks/webhooks.ts decides what they mean). */

export type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

export async function countWebhookRows(q: Queryable, accountId: string): Promise<number> {
  const [{ n } = { n: 0 }] = await q.db.select({ n: count() }).from(webhooks).where(eq(webhooks.accountId, accountId));
  return n;
}

export async function insertWebhookRow(q: Queryable, accountId: string, input: { event: WebhookEvent; url: string }): Promise<WebhookRow> {
  const [row] = await q.db.insert(webhooks).values({ accountId, event: input.event, url: input.url }).returning();
  return row!;
}

/** The account's webhooks, by id. */
export async function selectWebhookRows(q: Queryable, accountId: string): Promise<WebhookRow[]> {
  return q.db.select().from(webhooks).where(eq(webhooks.accountId, accountId)).orderBy(asc(webhooks.id));
}

export async function selectWebhookRow(q: Queryable, accountId: string, webhookId: number): Promise<WebhookRow | undefined> {
  const [row] = await q.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.accountId, accountId)));
  return row;
}

/** Whether the account has the webhook. */
export async function hasWebhook(q: Queryable, accountId: string, webhookId: number): Promise<boolean> {
  const [own] = await q.db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.accountId, accountId)));
  return own !== undefined;
}

/** Locks the webhook's notifications (in id order) until the caller's transaction ends. */
export async function lockWebhookNotifications(tx: Tx, webhookId: number): Promise<void> {
  await tx.db
    .select({ id: webhookNotifications.id })
    .from(webhookNotifications)
    .where(eq(webhookNotifications.webhookId, webhookId))
    .orderBy(asc(webhookNotifications.id))
    .for("update");
}

/** Deletes the account's webhook (its notifications and attempts go with it, ON DELETE CASCADE); true when there was one. */
export async function deleteWebhookRow(q: Queryable, accountId: string, webhookId: number): Promise<boolean> {
  const rows = await q.db
    .delete(webhooks)
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.accountId, accountId)))
    .returning({ id: webhooks.id });
  return rows.length > 0;
}

/** The webhook's attempts newest first, `limit` of them, those before `beforeId` when given. */
export async function selectWebhookAttemptRows(q: Queryable, webhookId: number, options: { limit: number; beforeId?: number }): Promise<WebhookAttemptRow[]> {
  const conds = [eq(webhookAttempts.webhookId, webhookId)];
  if (options.beforeId !== undefined) conds.push(lt(webhookAttempts.id, options.beforeId));
  return q.db
    .select()
    .from(webhookAttempts)
    .where(and(...conds))
    .orderBy(desc(webhookAttempts.id))
    .limit(options.limit);
}
