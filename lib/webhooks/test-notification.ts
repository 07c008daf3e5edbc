import { randomBytes } from "node:crypto";
import { canonicalWebhookEvent, webhookEventSchema } from "../contract/webhooks";
import { sampleEventData } from "../domain/webhooks/notification-payload";
import { getWebhook } from "../domain/webhooks/webhooks";
import { selectWebhookSigningKey } from "../storage/account-rows";
import type { Queryable } from "../storage/database";
import { postJson, type AttemptResult } from "./http-post";
import { signNotification } from "./signing";
import type { Resolver } from "./ssrf-guard";

export interface TestNotificationResult extends AttemptResult {
  /** The EventData that was sent. */
  eventData: unknown;
  webhookMessageId: string;
}

/**
 * Posts a sample notification of the webhook's event to its URL, signed with
 * the account's current key, through the same SSRF guard, timeout and
 * excerpt rules as real notifications, and returns what the receiver said.
 * Writes nothing: no event, no notification row, no change to the webhook's
 * LastResponse* members. Undefined when the account has no such webhook.
 */
export async function sendTestNotification(
  q: Queryable,
  accountId: string,
  webhookId: number,
  options: { timeoutMs: number; allowPrivate: boolean; resolver?: Resolver },
): Promise<TestNotificationResult | undefined> {
  const webhook = await getWebhook(q, accountId, webhookId);
  if (!webhook) return undefined;
  const signingKey = await selectWebhookSigningKey(q, accountId);
  if (signingKey === undefined) return undefined;
  const event = webhookEventSchema.safeParse(webhook.event);
  const eventData = sampleEventData(event.success ? canonicalWebhookEvent(event.data) : "delivery", "example.com");
  const id = `msg_mailroom_test_${randomBytes(8).toString("hex")}`;
  const signed = signNotification({ signingKey, notificationId: 0, webhookId: id, eventData });
  const result = await postJson(webhook.url, signed.body, signed.headers, options);
  return { ...result, eventData, webhookMessageId: id };
}
