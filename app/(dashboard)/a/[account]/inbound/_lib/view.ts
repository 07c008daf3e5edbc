import { z } from "zod";
import type { InboundMessageDetail } from "@/lib/contract/inbound";

/**
 * What the detail view shows of GET /inbound/messages/{MessageID}: the
 * members of the posted JSON (docs/contract.md §13.3) it reads, each with a
 * fallback, since the JSON exists only once the first post has built it.
 */
const text = z.string().catch("");
const viewSchema = z.object({
  From: text,
  FromName: text,
  To: text,
  Cc: text,
  ReplyTo: text,
  Subject: text,
  Date: text,
  TextBody: text,
  HtmlBody: text,
  StrippedTextReply: text,
  Headers: z.array(z.object({ Name: text, Value: text })).catch([]),
  Attachments: z
    .array(
      z.object({
        Name: text,
        Content: text,
        ContentType: text,
        ContentLength: z.number().catch(0),
        ContentID: text,
        DownloadURL: z.string().optional().catch(undefined),
      }),
    )
    .catch([]),
  RepliedToMessageID: z.string().nullable().catch(null),
  Authentication: z.object({ SPF: text, DKIM: text, DMARC: text }).nullable().catch(null),
});

export type InboundView = z.infer<typeof viewSchema> & { built: boolean };

export function inboundView(detail: InboundMessageDetail): InboundView {
  return { ...viewSchema.parse(detail), built: "Headers" in detail };
}
