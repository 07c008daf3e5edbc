import { z } from "zod";

/**
 * Webhook registration: POST, GET and DELETE /webhooks (docs/contract.md
 * §9). Imports only zod.
 */

/** The spec's registration vocabulary. */
export const REGISTRATION_EVENTS = ["bounce", "click", "open", "unsubscribe", "complaint", "delivery"] as const;
/** The notification vocabulary, also accepted at registration and listed back as given (docs/contract.md §2, §9.1). */
export const NOTIFICATION_EVENTS = ["bounced", "clicked", "opened", "unsubscribed", "complained", "delivered"] as const;

export type RegistrationEvent = (typeof REGISTRATION_EVENTS)[number];
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];
export type WebhookEvent = RegistrationEvent | NotificationEvent;

/** Each registration name and its notification-vocabulary twin. */
export const NOTIFICATION_EVENT_OF: Record<RegistrationEvent, NotificationEvent> = {
  bounce: "bounced",
  click: "clicked",
  open: "opened",
  unsubscribe: "unsubscribed",
  complaint: "complained",
  delivery: "delivered",
};

const REGISTRATION_EVENT_OF = Object.fromEntries(
  Object.entries(NOTIFICATION_EVENT_OF).map(([reg, notif]) => [notif, reg]),
) as Record<NotificationEvent, RegistrationEvent>;

/** The registration-vocabulary name of a webhook event in either vocabulary. */
export function canonicalWebhookEvent(event: WebhookEvent): RegistrationEvent {
  return (REGISTRATION_EVENT_OF as Record<string, RegistrationEvent>)[event] ?? (event as RegistrationEvent);
}

export const webhookEventSchema = z.enum([...REGISTRATION_EVENTS, ...NOTIFICATION_EVENTS]);

export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** Registrations an account may hold (docs/contract.md §9); one more is refused with 422. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 100;

/** Absolute http(s) URL of at most 2048 characters (the SSRF guard runs on top of this, server-side). */
export const webhookUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an absolute http or https URL" })
  .max(WEBHOOK_URL_MAX_LENGTH)
  .refine((u) => /^https?:\/\/[^/?#]/i.test(u), { message: "must be an absolute http or https URL" });

export const createWebhookRequestSchema = z.object({
  Event: webhookEventSchema,
  WebhookURL: webhookUrlSchema,
});
export type CreateWebhookRequest = z.infer<typeof createWebhookRequestSchema>;

export const createWebhookResponseSchema = z.object({ NewWebhookID: z.number().int().positive() });
export type CreateWebhookResponse = z.infer<typeof createWebhookResponseSchema>;

/** `LastResponseAt` of a webhook that was never called (docs/contract.md §9.2). */
export const NEVER_CALLED_AT = "1899-11-30T00:00:00.000Z";

const digits = z.string().regex(/^\d+$/);
const isoMillis = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** One element of GET /webhooks, exactly as this server renders it. */
export const webhookRecordSchema = z.object({
  WebhookID: digits,
  CreatedAt: isoMillis,
  UpdatedAt: isoMillis,
  Status: z.enum(["Enabled", "Disabled"]).describe("Disabled: the endpoint answered 410 or kept failing (docs/contract.md §16)"),
  WebhookURL: z.string(),
  Event: z.string(),
  LastResponseCode: digits,
  LastResponseBody: z.string(),
  LastResponseAt: isoMillis,
  LastResponseTryCounter: digits,
  DisabledReason: z.string().optional().describe("Extension: why a Disabled webhook was disabled"),
  DisabledAt: isoMillis.optional().describe("Extension: when a Disabled webhook was disabled"),
});
export type WebhookRecord = z.infer<typeof webhookRecordSchema>;

export const listWebhooksResponseSchema = z.object({ Webhooks: z.array(webhookRecordSchema) });
export type ListWebhooksResponse = z.infer<typeof listWebhooksResponseSchema>;

/** DELETE /webhooks/{id} answers `{}`. */
export const deleteWebhookResponseSchema = z.object({}).strict();
export type DeleteWebhookResponse = z.infer<typeof deleteWebhookResponseSchema>;

/** Path parameter of DELETE /webhooks/{id}: a positive integer (any size; too large simply names no webhook). */
export const webhookIdParamSchema = z
  .string()
  .regex(/^0*[1-9]\d*$/)
  .meta({ type: "integer", minimum: 1 });
