"use server";

import { z } from "zod";
import { ApiRequestError } from "@/lib/dashboard/public-api";
import { MAX_WEBHOOKS_PER_ACCOUNT, webhookEventSchema, webhookUrlSchema } from "@/lib/contract/webhooks";
import { refuse, staffAction } from "@/lib/dashboard/action";
import { apiFor } from "@/lib/dashboard/api-for";
import { listAttempts, revealSigningKey, rotateKey, sendTest } from "@/lib/dashboard/webhooks";

export type { TestResult } from "@/lib/dashboard/webhooks";

/**
 * Webhooks (admin of the account). Create and delete go through the public
 * API as the account (the dashboard is its client); the signing key, the
 * attempt log and the test notification are beyond the API (lib/dashboard/webhooks).
 */

const webhookId = z.coerce.number({ error: "Not a webhook id" }).int().positive().max(Number.MAX_SAFE_INTEGER);

const createInput = z.object({ Event: z.string().max(100), WebhookURL: z.string().max(10_000) }, { error: "Choose an event and enter a URL" });

export const createWebhookAction = staffAction(
  "webhooks",
  createInput,
  async (input, access) => {
    const fieldErrors: Record<string, string> = {};
    const event = webhookEventSchema.safeParse(input.Event);
    if (!event.success) fieldErrors.Event = "Choose one of the events in the list";
    const url = webhookUrlSchema.safeParse(input.WebhookURL.trim());
    if (!url.success) fieldErrors.WebhookURL = "Enter an absolute http:// or https:// URL of at most 2048 characters";
    if (!event.success || !url.success) refuse("Check the highlighted fields", fieldErrors);
    try {
      const { NewWebhookID } = await (await apiFor(access, "webhooks")).createWebhook({ Event: event.data, WebhookURL: url.data });
      return { id: NewWebhookID };
    } catch (err) {
      if (err instanceof ApiRequestError && err.status === 422) {
        const field = err.errors[0]?.Field;
        if (field === "WebhookURL") {
          refuse("The API refused the URL", {
            WebhookURL: "Refused: it must reach a public address (loopback and private networks are not allowed on this server)",
          });
        }
        if (field === "Event") refuse("The API refused the event", { Event: "Not an event the API accepts" });
        refuse(`The API refused the webhook (an account has at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks)`);
      }
      throw err;
    }
  },
  { revalidate: "/webhooks" },
);

export const deleteWebhookAction = staffAction(
  "webhooks",
  webhookId,
  async (id, access) => {
    try {
      await (await apiFor(access, "webhooks")).deleteWebhook(id);
      return null;
    } catch (err) {
      if (err instanceof ApiRequestError && err.status === 404) refuse("That webhook does not exist any more");
      throw err;
    }
  },
  { revalidate: "/webhooks" },
);

export const listAttemptsAction = staffAction("webhooks", webhookId, (id, access) => listAttempts(access, id));

export const sendTestAction = staffAction("webhooks", webhookId, (id, access) => sendTest(access, id));

export const revealSigningKeyAction = staffAction("webhooks", z.undefined().optional(), (_input, access) => revealSigningKey(access));

export const rotateSigningKeyAction = staffAction("webhooks", z.undefined().optional(), (_input, access) => rotateKey(access));

/** Deliveries, retry, replay and re-enabling (docs/contract.md §16), through the public API as the account. */
const seconds = z.number().int().nonnegative().max(4_102_444_800).optional();
const deliveriesInput = z.object({
  webhookId,
  status: z.enum(["pending", "succeeded", "failed"]).optional(),
  startDate: seconds,
  endDate: seconds,
  startFrom: z.number().int().nonnegative().max(1_000_000).optional(),
});
const deliveryInput = z.object({ webhookId, deliveryId: z.string().regex(/^\d{1,18}$/, "Not a delivery id") });

export const listDeliveriesAction = staffAction("webhooks", deliveriesInput, async (input, access) =>
  (await apiFor(access, "webhooks")).listWebhookDeliveries(input.webhookId, {
    Status: input.status,
    StartDate: input.startDate,
    EndDate: input.endDate,
    StartFrom: input.startFrom,
    RetrieveCount: 20,
  }),
);

export const getDeliveryAction = staffAction("webhooks", deliveryInput, async (input, access) =>
  (await apiFor(access, "webhooks")).getWebhookDelivery(input.webhookId, input.deliveryId),
);

export const retryDeliveryAction = staffAction("webhooks", deliveryInput, async (input, access) =>
  (await apiFor(access, "webhooks")).retryWebhookDelivery(input.webhookId, input.deliveryId),
);

export const replayFailedAction = staffAction("webhooks", z.object({ webhookId, startDate: seconds, endDate: seconds }), async (input, access) =>
  (await apiFor(access, "webhooks")).replayWebhookDeliveries(input.webhookId, { Status: "failed", StartDate: input.startDate, EndDate: input.endDate }),
);

export const enableWebhookAction = staffAction(
  "webhooks",
  webhookId,
  async (id, access) => (await apiFor(access, "webhooks")).enableWebhook(id),
  { revalidate: "/webhooks" },
);
