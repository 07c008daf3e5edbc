import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import { parseJsonText } from "../../json-worker";
import type { Queryable } from "../../storage/database";
import { selectMessageContentText } from "../../storage/message-rows";
import { isUuid } from "../accounts/accounts";
import { readRawMessage, type ReadPart } from "../inbound/read-raw";
import { parseMessageContent, type ContentAddress, type MessageContent } from "./email-request/message-content";

/**
 * What a message of the account carried, for the message page (docs/adr/0518):
 * its content as accepted, kept in messages.content until the message goes
 * with its retention (docs/contract.md §7.4). `raw` is the RFC 5322 message:
 * an SMTP submission's own bytes as accepted, or the API request composed
 * as delivery composes it (From, To, Cc, Reply-To, Subject, Date, Message-ID
 * `<MessageID@from-domain>`, the custom headers, X-Mailroom-Tags, the bodies
 * and attachments), before each recipient's tracking, List-Unsubscribe and
 * DKIM signature, which differ per copy.
 */
export interface SentMessage {
  transport: string;
  raw: Buffer;
}

export async function sentMessageOf(q: Queryable, accountId: string, messageId: string): Promise<SentMessage | undefined> {
  if (!isUuid(messageId) || !isUuid(accountId)) return undefined;
  const row = await selectMessageContentText(q, accountId, messageId.toLowerCase());
  if (!row) return undefined;
  const content = parseMessageContent(await parseJsonText(row.contentText));
  const raw = content.mime !== undefined ? Buffer.from(content.mime, "base64") : await composeAccepted(messageId.toLowerCase(), row.createdAt, content);
  return { transport: row.transport, raw };
}

const toAddress = (a: ContentAddress): Mail.Address => ({ name: a.name, address: a.email });

/** The accepted request as one message; base64 bodies, so that a 10 MB body is encoded in native code, not in one long turn. */
function composeAccepted(messageId: string, date: Date, content: MessageContent): Promise<Buffer> {
  const fromDomain = content.from.email.slice(content.from.email.lastIndexOf("@") + 1);
  const headers: Mail.Headers = content.headers.map(([key, value]) => ({ key, value }));
  if (content.tags.length > 0) headers.push({ key: "X-Mailroom-Tags", value: content.tags.join(", ") });
  return new MailComposer({
    textEncoding: "base64",
    from: toAddress(content.from),
    to: content.to.map(toAddress),
    cc: content.cc.length ? content.cc.map(toAddress) : undefined,
    replyTo: content.replyTo.length ? content.replyTo.map(toAddress) : undefined,
    subject: content.subject,
    date,
    messageId: `<${messageId}@${fromDomain}>`,
    text: content.text,
    html: content.html,
    headers,
    attachments: content.attachments.map((a) => ({
      content: Buffer.from(a.content, "base64"),
      filename: a.filename,
      contentType: a.type,
      contentDisposition: a.disposition,
      cid: a.contentId,
    })),
    disableFileAccess: true,
    disableUrlAccess: true,
  })
    .compile()
    .build();
}

export type SentPart = ReadPart;

/** The message page's reading of the raw message: its header lines, bodies and parts. */
export interface ReadSentMessage extends SentMessage {
  headers: { name: string; value: string }[];
  html: string | null;
  text: string | null;
  attachments: SentPart[];
}

export async function readSentMessage(q: Queryable, accountId: string, messageId: string): Promise<ReadSentMessage | undefined> {
  const sent = await sentMessageOf(q, accountId, messageId);
  if (!sent) return undefined;
  const { headers, html, text, attachments } = await readRawMessage(sent.raw);
  return { ...sent, headers, html, text, attachments };
}
