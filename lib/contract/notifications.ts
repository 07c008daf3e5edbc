import { z } from "zod";

/**
 * Webhook notification bodies (docs/contract.md
 * §10): `{Signature:{Timestamp,Token,Signature}, EventData}`.
 * One strict schema per EventData shape, so that a test catches a member too
 * many as well as one missing. Imports only zod.
 */

/** Mailgun-style signature: HMAC-SHA256(Timestamp + Token) in lowercase hex. */
export const notificationSignatureSchema = z.strictObject({
  /** Unix seconds of the attempt. */
  Timestamp: z.number().int().nonnegative(),
  /** 50 random hex characters, new for every attempt. */
  Token: z.string().regex(/^[0-9a-f]{50}$/),
  /** Lowercase hex HMAC-SHA256 of `${Timestamp}${Token}`. */
  Signature: z.string().regex(/^[0-9a-f]{64}$/),
});
export type NotificationSignature = z.infer<typeof notificationSignatureSchema>;

const common = {
  /** Sender domain (the message's From domain). */
  Domain: z.string(),
  /** The MessageID returned by POST /email. */
  MessageID: z.string(),
};

export const deliveredEventDataSchema = z.strictObject({
  Event: z.literal("delivered"),
  ...common,
  To: z.string(),
});

export const bouncedEventDataSchema = z.strictObject({
  Event: z.literal("bounced"),
  /** Which event caused the bounce notification. */
  EventType: z.enum(["failed", "rejected"]),
  ...common,
  BouncedEmailAddress: z.strictObject({
    /** The recipient that bounced. */
    EmailAddress: z.string(),
    /** Enhanced status code (RFC 3463), e.g. `5.1.1`; empty when none was given. */
    Status: z.string(),
    /** The receiving server's reply or the DSN's diagnostic, e.g. `smtp; 550 5.1.1 User unknown`. */
    DiagnosticCode: z.string(),
  }),
  /** The event's reason, as in GET /events. */
  Reason: z.string(),
  /** SMTP reply code, e.g. `550`; empty when the service refused the recipient itself. */
  Code: z.string(),
});

export const openedEventDataSchema = z.strictObject({
  Event: z.literal("opened"),
  ...common,
  To: z.string(),
  IPAddress: z.string(),
});

export const clickedEventDataSchema = z.strictObject({
  Event: z.literal("clicked"),
  ...common,
  To: z.string(),
  IPAddress: z.string(),
  /** The link that was followed. */
  Url: z.string(),
});

export const unsubscribedEventDataSchema = z.strictObject({
  Event: z.literal("unsubscribed"),
  ...common,
  To: z.string(),
  IPAddress: z.string(),
});

/** docs/contract.md §10.2: `{Event:"complained", Domain, MessageID, To}`. */
export const complainedEventDataSchema = z.strictObject({
  Event: z.literal("complained"),
  ...common,
  To: z.string(),
});

export const eventDataSchema = z.discriminatedUnion("Event", [
  deliveredEventDataSchema,
  bouncedEventDataSchema,
  openedEventDataSchema,
  clickedEventDataSchema,
  unsubscribedEventDataSchema,
  complainedEventDataSchema,
]);

export type DeliveredEventData = z.infer<typeof deliveredEventDataSchema>;
export type BouncedEventData = z.infer<typeof bouncedEventDataSchema>;
export type OpenedEventData = z.infer<typeof openedEventDataSchema>;
export type ClickedEventData = z.infer<typeof clickedEventDataSchema>;
export type UnsubscribedEventData = z.infer<typeof unsubscribedEventDataSchema>;
export type ComplainedEventData = z.infer<typeof complainedEventDataSchema>;
export type EventData = z.infer<typeof eventDataSchema>;

/** The whole POST body of a notification. */
export const notificationSchema = z.strictObject({
  Signature: notificationSignatureSchema,
  EventData: eventDataSchema,
});
export type Notification = z.infer<typeof notificationSchema>;

/** The body of one notification type, e.g. `notificationOf(deliveredEventDataSchema)`. */
export function notificationOf<T extends z.ZodType>(eventData: T) {
  return z.strictObject({ Signature: notificationSignatureSchema, EventData: eventData });
}
