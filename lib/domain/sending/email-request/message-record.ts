import type { MessageHeaders } from "../../../contract/events";
import type { ContentAddress, MessageContent } from "./message-content";

/**
 * What is computed once at acceptance: the event record's Message.Headers
 * (stored in messages.headers) and an estimate of the MIME size (the
 * delivery worker overwrites messages.size with the real one).
 */

const pair = (a: ContentAddress): [string, string] => [a.name, a.email];

export function messageHeadersOf(messageId: string, c: MessageContent): MessageHeaders {
  return {
    MessageId: messageId,
    From: [pair(c.from)],
    ReplyTo: c.replyTo.map(pair),
    To: c.to.map(pair),
    Cc: c.cc.map(pair),
    Bcc: c.bcc.map(pair),
    Subject: c.subject,
  };
}

/** Headers (~1 KB with DKIM and List-Unsubscribe), quoted-printable bodies, base64 attachments with line breaks. */
export function estimateMimeSize(c: MessageContent): number {
  const addresses = [c.from, ...c.to, ...c.cc, ...c.replyTo].reduce((n, a) => n + a.name.length + a.email.length + 6, 0);
  const headers = 1024 + c.subject.length + addresses + c.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  const body = (s?: string) => (s ? Math.ceil(Buffer.byteLength(s, "utf8") * 1.05) + 200 : 0);
  const attachments = c.attachments.reduce((n, a) => n + Math.ceil(a.content.length * (78 / 76)) + 300 + a.filename.length, 0);
  return headers + body(c.html) + body(c.text) + attachments;
}
