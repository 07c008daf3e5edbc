import { z } from "zod";
import { webhookUrlSchema } from "./webhooks";

/**
 * Inbound routes and messages under /api/v1/inbound (docs/contract.md §13).
 * Imports only zod.
 */

export const INBOUND_STATUSES = ["pending", "delivered", "failed"] as const;
export type InboundStatusName = (typeof INBOUND_STATUSES)[number];

export const createInboundRouteRequestSchema = z.object({
  Match: z.string().min(1).max(320).describe("An address (`support@in.example.com`) or a whole domain (`*@in.example.com`) of a verified domain of the account"),
  WebhookURL: webhookUrlSchema,
});
export type CreateInboundRouteRequest = z.infer<typeof createInboundRouteRequestSchema>;

export const createInboundRouteResponseSchema = z.object({ RouteID: z.number().int().positive() });

export const inboundRouteSchema = z.object({
  RouteID: z.number().int().positive(),
  Match: z.string(),
  WebhookURL: z.string(),
  CreatedAt: z.string(),
});
export const listInboundRoutesResponseSchema = z.object({ Routes: z.array(inboundRouteSchema) });
export type ListInboundRoutesResponse = z.infer<typeof listInboundRoutesResponseSchema>;

/** Route ids and message ids in paths. */
export const inboundRouteIdParamSchema = z
  .string()
  .regex(/^0*[1-9]\d{0,15}$/)
  .meta({ type: "integer", minimum: 1 });
export const inboundMessageIdParamSchema = z.uuid().describe("MessageID of an inbound message");

const MAX_RETRIEVE_COUNT = 100;
const integerString = (min: number, max?: number) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,15}$/, "must be an integer")
    .transform(Number)
    .pipe(max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max))
    .meta({ type: "integer", minimum: min, ...(max !== undefined && { maximum: max }) });

export const inboundMessagesQuerySchema = z
  .object({
    StartDate: integerString(0).optional().describe("Unix seconds, inclusive lower bound on ReceivedAt"),
    EndDate: integerString(0).optional().describe("Unix seconds, exclusive upper bound on ReceivedAt"),
    Recipient: z.string().max(320).optional().describe("The envelope recipient (OriginalRecipient), case-insensitive"),
    Status: z.enum(INBOUND_STATUSES).optional(),
    StartFrom: integerString(0).optional().meta({ default: 0 }).describe("Offset, default 0"),
    RetrieveCount: integerString(1, MAX_RETRIEVE_COUNT).optional().meta({ default: 20 }).describe(`1–${MAX_RETRIEVE_COUNT}, default 20`),
  })
  .refine((q) => q.StartDate === undefined || q.EndDate === undefined || q.StartDate <= q.EndDate, {
    message: "StartDate is after EndDate",
    path: ["StartDate"],
  });

export const inboundMessageSummarySchema = z.object({
  MessageID: z.string(),
  Status: z.enum(INBOUND_STATUSES),
  ReceivedAt: z.string(),
  OriginalRecipient: z.string(),
  MailboxHash: z.string(),
  From: z.string(),
  Subject: z.string(),
  Size: z.number().int(),
  Attempts: z.number().int(),
  RouteID: z.number().int().nullable(),
  RepliedToMessageID: z
    .string()
    .nullable()
    .describe("The account's message this mail answers: from In-Reply-To/References, else from a per-message reply address (`local+r-<token>@domain`); null when none"),
});
export type InboundMessageSummary = z.infer<typeof inboundMessageSummarySchema>;

export const listInboundMessagesResponseSchema = z.object({
  TotalRecords: z.number().int(),
  InboundMessages: z.array(inboundMessageSummarySchema),
});

export type ListInboundMessagesResponse = z.infer<typeof listInboundMessagesResponseSchema>;

/** DELETE /inbound/routes/{id} and POST /inbound/messages/{MessageID}/retry answer an empty object. */
export const inboundEmptyResponseSchema = z.object({});

export const inboundAttemptSchema = z.object({
  At: z.string(),
  DurationMs: z.number().int(),
  ResponseCode: z.number().int(),
  ResponseBody: z.string(),
  Error: z.string().nullable(),
});

/** GET /inbound/messages/{MessageID}: the posted JSON (once built by the first post) plus its delivery state. */
export const inboundMessageDetailSchema = z
  .looseObject({
    MessageID: z.string(),
    Status: z.enum(INBOUND_STATUSES),
    ReceivedAt: z.string(),
    ExpiresAt: z.string(),
    OriginalRecipient: z.string(),
    MailboxHash: z.string().describe("The `+tag` of the recipient address; a per-message reply address's `r-<token>` too, as received"),
    RouteID: z.number().int().nullable(),
    WebhookURL: z.string(),
    DeliveryAttempts: z.array(inboundAttemptSchema),
  })
  .describe("Every member of the posted JSON (From, To, Subject, TextBody, Attachments, …) plus Status, ReceivedAt, ExpiresAt, RouteID, WebhookURL and DeliveryAttempts");
export type InboundMessageDetail = z.infer<typeof inboundMessageDetailSchema>;
