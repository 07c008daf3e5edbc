import { z } from "zod";
import { addressInputSchema } from "./common";
import { sendAtSchema } from "./scheduled";
import { withinCodePoints } from "./text";

/**
 * POST /email (docs/contract.md §5). The schema
 * here is the permissive wire shape, for the OpenAPI document, the dashboard's
 * compose form and the API client. The server's validation is the ordered,
 * code-by-code check of lib/domain/sending/email-request (it must report the spec's
 * error codes, which a zod schema cannot express); both count lengths and
 * characters by lib/contract/text.ts. Imports only zod and lib/contract.
 */

/**
 * Recipient count limits per message (docs/contract.md §5.3–§5.6). The
 * subject and tag lengths are characters (code points), as
 * lib/contract/text.ts counts them, not UTF-16 units.
 */
export const MAX_TO = 10;
export const MAX_CC = 10;
export const MAX_BCC = 5;
export const MAX_REPLY_TO = 10;
export const MAX_SUBJECT_LENGTH = 998;
export const MAX_TAGS = 10;
export const MAX_TAG_LENGTH = 128;
export const MAX_CUSTOM_HEADERS = 50;
/** Decoded bodies plus decoded attachments (docs/contract.md §5.13). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** `X-Mailroom-Track`: per-message tracking override, stripped before sending. */
export const TRACKING_HEADER = "X-Mailroom-Track";
export const TRACKING_MODES = ["none", "opens", "clicks", "all"] as const;
export type TrackingMode = (typeof TRACKING_MODES)[number];

/**
 * Headers the service writes itself; a request may not set them (docs/contract.md
 * §5.11). Sender and every Resent-* field name an originator or a resend as
 * much as From does: a mail client may show them instead of From, and no
 * verified domain stands behind them, so they are owned too (docs/adr/0703).
 */
export const OWNED_HEADERS = [
  "from",
  "sender",
  "to",
  "cc",
  "bcc",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "mime-version",
  "return-path",
  "dkim-signature",
  "received",
  "list-unsubscribe",
  "list-unsubscribe-post",
] as const;

export function isOwnedHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith("content-") || n.startsWith("resent-") || (OWNED_HEADERS as readonly string[]).includes(n);
}

export const attachmentSchema = z.object({
  Content: z.string().describe("Strict base64 of the file"),
  Type: z.string().optional().describe("MIME type; inferred from Filename when absent"),
  Filename: z.string().min(1),
  Disposition: z.string().optional().describe("`attachment` (default) or `inline`, any case"),
  ContentId: z.union([z.number().int(), z.string()]).optional().describe("Makes the part addressable as cid:<ContentId>; also spelled ContentID"),
});
export type AttachmentInput = z.infer<typeof attachmentSchema>;

export const emailRequestSchema = z.object({
  From: addressInputSchema,
  To: z.array(addressInputSchema).min(1).max(MAX_TO),
  CC: z.array(addressInputSchema).max(MAX_CC).optional(),
  BCC: z.array(addressInputSchema).max(MAX_BCC).optional(),
  ReplyTo: z.array(addressInputSchema).max(MAX_REPLY_TO).optional(),
  Subject: z
    .string()
    .min(1)
    .refine((s) => withinCodePoints(s, MAX_SUBJECT_LENGTH), `At most ${MAX_SUBJECT_LENGTH} characters`)
    .meta({ maxLength: MAX_SUBJECT_LENGTH }),
  ContentType: z.string().describe("`HTML` or `Text` (any case; `plain` = Text). Reported as HTML whenever an HTML body is present."),
  HTMLContent: z.string().optional(),
  PlainContent: z.string().optional(),
  Tags: z
    .array(
      z
        .string()
        .min(1)
        .refine((t) => withinCodePoints(t, MAX_TAG_LENGTH), `At most ${MAX_TAG_LENGTH} characters`)
        .meta({ maxLength: MAX_TAG_LENGTH }),
    )
    .max(MAX_TAGS)
    .optional(),
  Headers: z
    .record(z.string(), z.string())
    .optional()
    .describe(`Custom headers (at most ${MAX_CUSTOM_HEADERS}); \`${TRACKING_HEADER}: none|opens|clicks|all\` overrides tracking for this message`),
  Attachments: z.array(attachmentSchema).optional(),
  // Extension (docs/contract.md §14.3): a stored template in place of Subject, ContentType, HTMLContent and PlainContent.
  TemplateID: z.number().int().positive().optional().describe("A template of the account: its rendered version replaces Subject, ContentType, HTMLContent and PlainContent (give none of them)"),
  TemplateVersion: z.number().int().positive().optional().describe("Pins a version of TemplateID; the latest when absent"),
  TemplateModel: z.record(z.string(), z.unknown()).optional().describe("The values of the template's variables"),
  // Extension: a scheduled send (docs/contract.md §15.1).
  SendAt: sendAtSchema.optional(),
});
export type EmailRequest = z.infer<typeof emailRequestSchema>;

export const emailResponseSchema = z.object({
  MessageID: z.uuid().describe("Identifier of the accepted message (UUID v4); the MessageID filter of GET /events"),
});
export type EmailResponse = z.infer<typeof emailResponseSchema>;
