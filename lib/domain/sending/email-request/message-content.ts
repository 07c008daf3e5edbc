import { z } from "zod";
import { TRACKING_MODES } from "../../../contract/email";

/**
 * The shape of `messages.content` (jsonb), defined once: the normalised
 * request, written by the acceptance code (POST /email: the output type,
 * `MessageContent`, is what validate.ts builds) and parsed by the delivery
 * worker to build the MIME message. The reader is liberal (missing arrays
 * default to empty, headers as pairs or an object) so that rows still build.
 * Addresses are as given (trimmed), names "" when absent.
 */

export const contentAddressSchema = z.object({
  name: z.string().nullish().transform((v) => v ?? ""),
  email: z.string().min(3),
});
export type ContentAddress = z.infer<typeof contentAddressSchema>;

export const contentAttachmentSchema = z.object({
  /** Base64 of the decoded bytes (exactly what the client sent, validated strict base64). */
  content: z.string(),
  filename: z.string().min(1),
  /** MIME type (given, or inferred from the file name at acceptance). */
  type: z.string().nullish().transform((v) => v || "application/octet-stream"),
  disposition: z
    .string()
    .nullish()
    .transform((v): "attachment" | "inline" => (v?.toLowerCase() === "inline" ? "inline" : "attachment")),
  /** Content-ID without angle brackets; the HTML refers to it as `cid:<contentId>`. */
  contentId: z
    .union([z.string(), z.number()])
    .nullish()
    .transform((v) => (v === null || v === undefined || v === "" ? undefined : String(v)))
    .optional(),
});
export type ContentAttachment = z.infer<typeof contentAttachmentSchema>;

/** `X-Mailroom-Track` values (lib/contract/email.ts); absent (null) means "the account's setting". */
const trackingModeSchema = z.enum(TRACKING_MODES);

const list = <T extends z.ZodType>(item: T) => z.array(item).nullish().transform((v) => v ?? []);

export const messageContentSchema = z.object({
  from: contentAddressSchema,
  to: list(contentAddressSchema),
  cc: list(contentAddressSchema),
  /** Envelope only: never written to a header. */
  bcc: list(contentAddressSchema),
  replyTo: list(contentAddressSchema),
  subject: z.string(),
  /** HTML whenever an HTML body is present (informational; the bodies decide). */
  contentType: z.enum(["HTML", "Text"]).optional(),
  html: z.string().nullish().transform((v) => v || undefined).optional(),
  text: z.string().nullish().transform((v) => v || undefined).optional(),
  attachments: list(contentAttachmentSchema),
  /** Custom headers as [name, value] in request order, already validated (no owned headers, no CR/LF); X-Mailroom-Track removed. An object is read too. */
  headers: z
    .union([z.array(z.tuple([z.string(), z.string()])), z.record(z.string(), z.string())])
    .nullish()
    .transform((v): [string, string][] => (Array.isArray(v) ? v : Object.entries(v ?? {}))),
  tags: list(z.string()),
  /** From the `X-Mailroom-Track` header; null/absent = account default. */
  tracking: trackingModeSchema.nullish().transform((v) => v ?? undefined).optional(),
  /**
   * An SMTP submission (docs/adr/0700): base64 of the message as accepted
   * (its own MIME, with Message-ID and Date added when missing and Bcc
   * removed). Delivery sends these bytes, adding only List-Unsubscribe,
   * tracking in text/html parts and DKIM; html, text and attachments are then empty.
   */
  mime: z.string().optional(),
});

/** What the acceptance code writes and the delivery worker reads (defaults applied; optional members may be left out). */
export type MessageContent = z.output<typeof messageContentSchema>;

export function parseMessageContent(value: unknown): MessageContent {
  return messageContentSchema.parse(value);
}
