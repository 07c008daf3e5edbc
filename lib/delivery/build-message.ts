import { Readable } from "node:stream";
import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import { signDkim, type DkimKey } from "./dkim";
import type { ContentAddress, MessageContent } from "../domain/sending/email-request/message-content";

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
  /** HTML body after tracking injection, whole or in pieces to concatenate (defaults to content.html). */
  html?: string | readonly string[];
  /** List-Unsubscribe targets: the one-click URL and a mailto address. */
  unsubscribe?: { url: string; mailto?: string };
  dkim?: DkimKey;
}

const toAddress = (a: ContentAddress): Mail.Address => ({ name: a.name, address: a.email });

/**
 * A body over this many characters is handed to the composer as a stream of
 * chunks with a turn of the event loop between them, and encoded base64
 * (nodemailer's quoted-printable encoder takes seconds on 10 MB and runs in
 * one go): a 10 MB body never holds the process (the stall budget, ADR 0310; docs/delivery.md).
 */
export const STREAMED_BODY_CHARS = 64 * 1024;

const lengthOf = (text: string | readonly string[]) => (typeof text === "string" ? text.length : text.reduce((n, p) => n + p.length, 0));

/** UTF-8 chunks of about STREAMED_BODY_CHARS characters (never splitting a surrogate pair), a turn of the event loop before each. */
function chunked(text: string | readonly string[]): Readable {
  const pieces = typeof text === "string" ? [text] : text;
  return Readable.from(
    (async function* () {
      let batch: string[] = [];
      let size = 0;
      for (const piece of pieces) {
        for (let i = 0; i < piece.length; ) {
          let end = Math.min(i + STREAMED_BODY_CHARS - size, piece.length);
          const last = piece.charCodeAt(end - 1);
          if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end--; // keep a pair together
          if (end <= i) end = i + 1;
          batch.push(piece.slice(i, end));
          size += end - i;
          i = end;
          if (size >= STREAMED_BODY_CHARS - 1) {
            yield Buffer.from(batch.join(""), "utf8");
            batch = [];
            size = 0;
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
        }
      }
      if (size > 0) yield Buffer.from(batch.join(""), "utf8");
    })(),
  );
}

/** Base64 characters decoded between two turns of the event loop (a multiple of 4: whole groups). */
const BASE64_CHUNK_CHARS = 64 * 1024;

/**
 * A large attachment's bytes as a stream, decoded from its stored base64 a
 * slice at a time with a turn of the event loop before each, so that neither
 * the decoding nor nodemailer's base64 encoder (which takes a Buffer in one
 * chunk: ~50 ms for 7.5 MB) holds the process.
 */
function decodedChunks(base64: string): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < base64.length; i += BASE64_CHUNK_CHARS) {
        if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        yield Buffer.from(base64.slice(i, i + BASE64_CHUNK_CHARS), "base64");
      }
    })(),
  );
}

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
  const html = options.html ?? content.html;
  const large = (html !== undefined && lengthOf(html) > STREAMED_BODY_CHARS) || (content.text?.length ?? 0) > STREAMED_BODY_CHARS;
  return {
    ...(large && { textEncoding: "base64" as const }),
    from: toAddress(content.from),
    to: content.to.map(toAddress),
    cc: content.cc.length ? content.cc.map(toAddress) : undefined,
    replyTo: content.replyTo.length ? content.replyTo.map(toAddress) : undefined,
    subject: content.subject,
    date: options.date,
    messageId: `<${options.messageId}@${options.fromDomain}>`,
    text: large && content.text !== undefined ? chunked(content.text) : content.text,
    html: html === undefined ? undefined : large ? chunked(html) : typeof html === "string" ? html : html.join(""),
    headers: headers as Mail.Headers,
    attachments: content.attachments.map((a) => ({
      content: a.content.length > BASE64_CHUNK_CHARS ? decodedChunks(a.content) : Buffer.from(a.content, "base64"),
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
  return options.dkim ? await signDkim(raw, options.dkim) : raw;
}
