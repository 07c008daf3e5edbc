import { z } from "zod";
import { headerAddressSchema } from "./common";
import { MAX_SUBJECT_LENGTH } from "./email";
import { withinCodePoints } from "./text";

/**
 * GET /events (docs/contract.md §7, §8). Imports only zod.
 */

export const EVENT_TYPES = ["accepted", "rejected", "failed", "delivered", "opened", "clicked", "unsubscribed", "complained"] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** The spec's alias of `accepted`, usable in the Event filter. */
export const ACCEPTED_ALIAS = "accepted-by-system";

export const DEFAULT_RETRIEVE_COUNT = 5;
/** The extension filters (docs/contract.md §7.6): an address is at most 320 characters (64 + @ + 255). */
export const MAX_RECIPIENT_FILTER_LENGTH = 320;
/** A Subject fragment is matched with trigrams (docs/adr/0051): shorter has none to look up. */
export const MIN_SUBJECT_FILTER_LENGTH = 3;
export const MAX_RETRIEVE_COUNT = 100;

/** Digits of an integer in [min, max]; documented (OpenAPI) as the integer it is. */
export const integerString = (min: number, max?: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be an integer")
    .transform(Number)
    .pipe(max === undefined ? z.number().int().min(min).max(Number.MAX_SAFE_INTEGER) : z.number().int().min(min).max(max))
    .meta({ type: "integer", minimum: min, ...(max !== undefined && { maximum: max }) });

/**
 * The query string. Values arrive as strings; `MessageId` is accepted as an
 * alias of `MessageID` (the route maps it before parsing).
 */
export const eventsQuerySchema = z
  .object({
    StartDate: integerString(0).optional().describe("Unix seconds, inclusive lower bound on LoggedAt"),
    EndDate: integerString(0).optional().describe("Unix seconds, inclusive upper bound on LoggedAt"),
    Event: z
      .enum([...EVENT_TYPES, ACCEPTED_ALIAS])
      .optional()
      .describe("Event type; `accepted-by-system` matches `accepted`"),
    StartFrom: integerString(0).optional().meta({ default: 0 }).describe("Offset, default 0"),
    RetrieveCount: integerString(1, MAX_RETRIEVE_COUNT)
      .optional()
      .meta({ default: DEFAULT_RETRIEVE_COUNT })
      .describe(`1–${MAX_RETRIEVE_COUNT}, default ${DEFAULT_RETRIEVE_COUNT}`),
    MessageID: z.string().optional().describe("Filter to one message (alias: MessageId); an unknown id gives TotalRecords 0"),
    Recipient: z
      .string()
      .trim()
      .min(1)
      .max(MAX_RECIPIENT_FILTER_LENGTH)
      .optional()
      .describe("Extension: events of this recipient address only (exact, case-insensitive)"),
    Subject: z
      .string()
      .trim()
      .refine((s) => !withinCodePoints(s, MIN_SUBJECT_FILTER_LENGTH - 1), `At least ${MIN_SUBJECT_FILTER_LENGTH} characters`)
      .refine((s) => withinCodePoints(s, MAX_SUBJECT_LENGTH), `At most ${MAX_SUBJECT_LENGTH} characters`)
      .optional()
      .meta({ minLength: MIN_SUBJECT_FILTER_LENGTH, maxLength: MAX_SUBJECT_LENGTH })
      .describe("Extension: events of messages whose Subject contains this fragment (case-insensitive), among the account's newest matching messages"),
  })
  .refine((q) => q.StartDate === undefined || q.EndDate === undefined || q.StartDate <= q.EndDate, {
    message: "StartDate is after EndDate",
    path: ["StartDate"],
  });
export type EventsQuery = z.infer<typeof eventsQuerySchema>;

export const geolocationSchema = z.object({ City: z.string(), Region: z.string(), Country: z.string() });

export const messageHeadersSchema = z.object({
  MessageId: z.string(),
  From: z.array(headerAddressSchema),
  ReplyTo: z.array(headerAddressSchema),
  To: z.array(headerAddressSchema),
  Cc: z.array(headerAddressSchema),
  Bcc: z.array(headerAddressSchema),
  Subject: z.string(),
});
export type MessageHeaders = z.infer<typeof messageHeadersSchema>;

/** A delivered copy's TLS (docs/contract.md §7.7): the policy that applied, what was negotiated, whether its check passed. */
export const tlsVerdictSchema = z.object({
  Policy: z.enum(["none", "opportunistic", "mta-sts", "dane"]),
  Mode: z.enum(["enforce", "testing"]).optional(),
  Version: z.string().optional(),
  Cipher: z.string().optional(),
  Verified: z.boolean(),
  Failure: z.string().optional(),
});
export type TlsVerdictRecord = z.infer<typeof tlsVerdictSchema>;

/** One element of Events. `Ip`/`Geolocation` only on opened, clicked, unsubscribed; `Url` only on clicked. */
export const eventRecordSchema = z.object({
  Event: z.enum(EVENT_TYPES),
  LoggedAt: z.number().int(),
  LogLevel: z.enum(["info", "warn", "error"]),
  Message: z.object({
    Headers: messageHeadersSchema,
    Size: z.number().int(),
    Transport: z.enum(["api", "smtp"]),
  }),
  Recipient: z.string(),
  Reason: z.string(),
  Ip: z.string().optional(),
  Geolocation: geolocationSchema.optional(),
  Url: z.string().optional().describe("Extension: the followed link of a clicked event"),
  Tags: z.array(z.string()).describe("Extension: the message's tags"),
  EventID: z.string().describe("Extension: a stable id of the record"),
  Tls: tlsVerdictSchema.optional().describe("Extension: how a delivered copy travelled (docs/contract.md §7.7)"),
});
export type EventRecord = z.infer<typeof eventRecordSchema>;

export const eventsResponseSchema = z.object({
  TotalRecords: z.number().int().nonnegative(),
  Events: z.array(eventRecordSchema),
});
export type EventsResponse = z.infer<typeof eventsResponseSchema>;

/**
 * The event record as any server that speaks the spec may send it (for API
 * clients such as the dashboard's): `Size`/`Transport` may be missing,
 * address entries may be plain strings, the extensions (`Url`, `Tags`,
 * `EventID`) may be absent, and unknown members are kept.
 */
const looseAddressEntry = z.union([z.string(), z.array(z.string())]);
export const looseEventRecordSchema = z.looseObject({
  Event: z.string(),
  LoggedAt: z.number(),
  LogLevel: z.string().optional(),
  Message: z
    .looseObject({
      Headers: z
        .looseObject({
          MessageId: z.string().optional(),
          From: z.array(looseAddressEntry).optional(),
          ReplyTo: z.array(looseAddressEntry).optional(),
          To: z.array(looseAddressEntry).optional(),
          Cc: z.array(looseAddressEntry).optional(),
          Bcc: z.array(looseAddressEntry).optional(),
          Subject: z.string().optional(),
        })
        .optional(),
      Size: z.number().optional(),
      Transport: z.string().optional(),
    })
    .optional(),
  Recipient: z.string().optional(),
  Reason: z.string().optional(),
  Ip: z.string().optional(),
  Geolocation: z.looseObject({ City: z.string().optional(), Region: z.string().optional(), Country: z.string().optional() }).optional(),
  Url: z.string().optional(),
  Tags: z.array(z.string()).optional(),
  EventID: z.string().optional(),
  Tls: z.looseObject({ Policy: z.string(), Mode: z.string().optional(), Version: z.string().optional(), Cipher: z.string().optional(), Verified: z.boolean(), Failure: z.string().optional() }).optional(),
});
export type LooseEventRecord = z.infer<typeof looseEventRecordSchema>;

export const looseEventsResponseSchema = z.looseObject({
  TotalRecords: z.number(),
  Events: z.array(looseEventRecordSchema),
});
export type LooseEventsResponse = z.infer<typeof looseEventsResponseSchema>;
