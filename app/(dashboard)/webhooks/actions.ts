"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { ApiRequestError, getApiClient } from "@/lib/api-client";
import { getDashboardAccountId } from "@/lib/api-client/dashboard-account";
import { describeApiError } from "@/lib/api-client/describe-error";
import { requireRole } from "@/lib/auth/require-role";
import { webhookEventSchema, webhookUrlSchema } from "@/lib/contract/webhooks";
import { getAccount, rotateSigningKey } from "@/lib/domain/accounts";
import { sendTestNotification } from "@/lib/webhooks/test-notification";
import { listWebhookAttempts, type WebhookAttempt } from "@/lib/domain/webhooks";
import { getServerContext } from "@/lib/runtime";

/**
 * Webhooks (admin only). Create and delete go through the public API (the
 * dashboard is its client); the signing key, the attempt log and the test
 * notification are beyond the API and use the server-only domain modules.
 */

export type Result<T = object> = ({ ok: true } & T) | { ok: false; error: string; fieldErrors?: Record<string, string> };

const webhookId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export async function createWebhookAction(raw: unknown): Promise<Result<{ id: number }>> {
  await requireRole("webhooks");
  const input = z.object({ Event: z.unknown(), WebhookURL: z.unknown() }).safeParse(raw);
  if (!input.success) return { ok: false, error: "Choose an event and enter a URL" };
  const fieldErrors: Record<string, string> = {};
  const event = webhookEventSchema.safeParse(input.data.Event);
  if (!event.success) fieldErrors.Event = "Choose one of the events in the list";
  const url = webhookUrlSchema.safeParse(typeof input.data.WebhookURL === "string" ? input.data.WebhookURL.trim() : input.data.WebhookURL);
  if (!url.success) fieldErrors.WebhookURL = "Enter an absolute http:// or https:// URL of at most 2048 characters";
  if (!event.success || !url.success) return { ok: false, error: "Check the highlighted fields", fieldErrors };
  try {
    const { NewWebhookID } = await (await getApiClient()).createWebhook({ Event: event.data, WebhookURL: url.data });
    revalidatePath("/webhooks");
    return { ok: true, id: NewWebhookID };
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 422) {
      const field = err.errors[0]?.Field;
      if (field === "WebhookURL") {
        return {
          ok: false,
          error: "The API refused the URL",
          fieldErrors: { WebhookURL: "Refused: it must reach a public address (loopback and private networks are not allowed on this server)" },
        };
      }
      if (field === "Event") return { ok: false, error: "The API refused the event", fieldErrors: { Event: "Not an event the API accepts" } };
      return { ok: false, error: "The API refused the webhook (an account has at most 100 webhooks)" };
    }
    return { ok: false, error: describeApiError(err) };
  }
}

export async function deleteWebhookAction(rawId: unknown): Promise<Result> {
  await requireRole("webhooks");
  const id = webhookId.safeParse(rawId);
  if (!id.success) return { ok: false, error: "Not a webhook id" };
  try {
    await (await getApiClient()).deleteWebhook(id.data);
    revalidatePath("/webhooks");
    return { ok: true };
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 404) return { ok: false, error: "That webhook does not exist any more" };
    return { ok: false, error: describeApiError(err) };
  }
}

export async function listAttemptsAction(rawId: unknown): Promise<Result<{ attempts: WebhookAttempt[] }>> {
  await requireRole("webhooks");
  const id = webhookId.safeParse(rawId);
  if (!id.success) return { ok: false, error: "Not a webhook id" };
  const attempts = await listWebhookAttempts(getServerContext().database.db, await getDashboardAccountId(), id.data, { limit: 50 });
  if (!attempts) return { ok: false, error: "That webhook does not exist any more" };
  return { ok: true, attempts };
}

export interface TestResult {
  statusCode: number;
  body: string;
  durationMs: number;
  error: string | null;
  webhookId: string;
  eventData: string;
}

export async function sendTestAction(rawId: unknown): Promise<Result<{ result: TestResult }>> {
  await requireRole("webhooks");
  const id = webhookId.safeParse(rawId);
  if (!id.success) return { ok: false, error: "Not a webhook id" };
  const ctx = getServerContext();
  const result = await sendTestNotification(ctx.database.db, await getDashboardAccountId(), id.data, {
    timeoutMs: ctx.config.webhooks.timeoutMs,
    allowPrivate: ctx.config.webhooks.allowPrivate,
  });
  if (!result) return { ok: false, error: "That webhook does not exist any more" };
  return {
    ok: true,
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

export async function revealSigningKeyAction(): Promise<Result<{ key: string }>> {
  await requireRole("webhooks");
  const account = await getAccount(getServerContext().database.db, await getDashboardAccountId());
  if (!account) return { ok: false, error: "The dashboard's account was not found" };
  return { ok: true, key: account.webhookSigningKey };
}

export async function rotateSigningKeyAction(): Promise<Result<{ key: string }>> {
  await requireRole("webhooks");
  const key = await rotateSigningKey(getServerContext().database.db, await getDashboardAccountId());
  return { ok: true, key };
}
