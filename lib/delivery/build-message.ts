import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import { signDkim, type DkimKey } from "./dkim";
import type { ContentAddress, MessageContent } from "./message-content";

/**
 * Builds the RFC 5322 message of one recipient's copy with nodemailer's
 * composer: From, To, Cc (never Bcc), Reply-To, Subject, Date, Message-ID
 * `<MessageID@from-domain>`, the custom headers, Tags as X-Mailroom-Tags,
 * text + HTML as multipart/alternative, attachments (inline ones related
 * to the HTML by Content-ID), List-Unsubscribe (URL and mailto) with
 * List-Unsubscribe-Post, then a DKIM signature (relaxed/relaxed, rsa-sha256).
 */

export type { DkimKey };

export interface BuildOptions {
  messageId: string;
  fromDomain: string;
  date: Date;
  content: MessageContent;
  /** HTML body after tracking injection (defaults to content.html). */
  html?: string;
  /** List-Unsubscribe targets: the one-click URL and a mailto address. */
  unsubscribe?: { url: string; mailto?: string };
  dkim?: DkimKey;
}

const toAddress = (a: ContentAddress): Mail.Address => ({ name: a.name, address: a.email });

export function composerOptions(options: BuildOptions): Mail.Options {
  const { content } = options;
  const headers: { key: string; value: string | { prepared: boolean; value: string } }[] = [];
  for (const [name, value] of content.headers) {
    if (name.toLowerCase() === "x-mailroom-track") continue; // never reaches the wire
    headers.push({ key: name, value });
  }
  if (content.tags.length) headers.push({ key: "X-Mailroom-Tags", value: content.tags.join(", ") });
  if (options.unsubscribe) {
    const targets = [`<${options.unsubscribe.url}>`];
    if (options.unsubscribe.mailto) targets.push(`<mailto:${options.unsubscribe.mailto}?subject=unsubscribe>`);
    headers.push({ key: "List-Unsubscribe", value: { prepared: true, value: targets.join(", ") } });
    headers.push({ key: "List-Unsubscribe-Post", value: { prepared: true, value: "List-Unsubscribe=One-Click" } });
  }
  return {
    from: toAddress(content.from),
    to: content.to.map(toAddress),
    cc: content.cc.length ? content.cc.map(toAddress) : undefined,
    replyTo: content.replyTo.length ? content.replyTo.map(toAddress) : undefined,
    subject: content.subject,
    date: options.date,
    messageId: `<${options.messageId}@${options.fromDomain}>`,
    text: content.text,
    html: options.html ?? content.html,
    headers: headers as Mail.Headers,
    attachments: content.attachments.map((a) => ({
      content: Buffer.from(a.content, "base64"),
      filename: a.filename,
      contentType: a.type,
      contentDisposition: a.disposition,
      cid: a.contentId,
    })),
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

export async function composeMessage(options: BuildOptions): Promise<Buffer> {
  return new MailComposer(composerOptions(options)).compile().build();
}

export async function buildMessage(options: BuildOptions): Promise<Buffer> {
  const raw = await composeMessage(options);
  return options.dkim ? signDkim(raw, options.dkim) : raw;
}
