import "server-only";
import { getAccount, rotateSigningKey } from "../domain/accounts/accounts";
import { sendTestNotification } from "../webhooks/test-notification";
import { listWebhookAttempts, type WebhookAttempt } from "../domain/webhooks/webhooks";
import { getServerContext } from "../runtime";
import type { AccountAccess } from "./decide";
import { refuse } from "./refusal";
import { assertArea } from "./guard";

export type { WebhookAttempt } from "../domain/webhooks/webhooks";

/** What the public API cannot express about an account's webhooks: attempts, test notification, signing key. */

export function webhookSettings(): { allowPrivate: boolean; retryScheduleMs: readonly number[] } {
  const { allowPrivate, retryScheduleMs } = getServerContext().config.webhooks;
  return { allowPrivate, retryScheduleMs };
}

export async function listAttempts(access: AccountAccess, webhookId: number): Promise<{ attempts: WebhookAttempt[] }> {
  assertArea(access, "webhooks");
  const attempts = await listWebhookAttempts(getServerContext().database, access.account.accountId, webhookId, { limit: 50 });
  if (!attempts) refuse("That webhook does not exist any more");
  return { attempts };
}

export interface TestResult {
  statusCode: number;
  body: string;
  durationMs: number;
  error: string | null;
  webhookId: string;
  eventData: string;
}

export async function sendTest(access: AccountAccess, webhookId: number): Promise<{ result: TestResult }> {
  assertArea(access, "webhooks");
  const ctx = getServerContext();
  const result = await sendTestNotification(ctx.database, access.account.accountId, webhookId, {
    timeoutMs: ctx.config.webhooks.timeoutMs,
    allowPrivate: ctx.config.webhooks.allowPrivate,
  });
  if (!result) refuse("That webhook does not exist any more");
  return {
    result: {
      statusCode: result.statusCode,
      body: result.body,
      durationMs: result.durationMs,
      error: result.error ?? null,
      webhookId: result.webhookMessageId,
      eventData: JSON.stringify(result.eventData, null, 2),
    },
  };
}

export async function revealSigningKey(access: AccountAccess): Promise<{ key: string }> {
  assertArea(access, "webhooks");
  const account = await getAccount(getServerContext().database, access.account.accountId);
  if (!account) refuse("The account was not found");
  return { key: account.webhookSigningKey };
}

export async function rotateKey(access: AccountAccess): Promise<{ key: string }> {
  assertArea(access, "webhooks");
  return { key: await rotateSigningKey(getServerContext().database, access.account.accountId) };
}
