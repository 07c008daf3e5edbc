import { setImmediate as nextTurn } from "node:timers/promises";
import type { DNSResolver } from "mailauth";
import { messageText } from "../../tracking/html-text";
import type { Readable } from "node:stream";
import { rawSlices, SLICE_BYTES } from "./slices";
import { simpleParser, type AddressObject, type EmailAddress } from "mailparser";
import { parseAddress } from "./route-match";
import { mailroomReferences } from "./references";
import { strippedTextReply } from "./stripped-reply";
import { authenticationOf, type Authentication } from "./authentication";

/**
 * The JSON posted to a route (docs/contract.md §13.4): Postmark's inbound
 * field names, so that parsers written for Postmark work unchanged, plus
 * RepliedToMessageID and Authentication. Built once per message by its first
 * post, from the stored raw MIME (already bounded in size, header count,
 * parts and depth by the SMTP server), with mailparser fed in slices so that
 * a 10 MB message never holds the event loop.
 */

export interface AddressFull {
  Email: string;
  Name: string;
  MailboxHash: string;
}

export interface InboundAttachment {
  Name: string;
  /**
   * Base64; empty when the attachment is larger than the inline limit (then
   * DownloadURL is set). Built payloads leave it empty and carry the bytes
   * beside it (BuiltInboundPayload): the JSON text gets them in steps.
   */
  Content: string;
  ContentType: string;
  ContentLength: number;
  ContentID: string;
  /** A signed URL that expires with the message, for attachments above the inline limit. */
  DownloadURL?: string;
}

export interface InboundPayload {
  From: string;
  FromName: string;
  FromFull: AddressFull;
  To: string;
  ToFull: AddressFull[];
  Cc: string;
  CcFull: AddressFull[];
  Bcc: string;
  BccFull: AddressFull[];
  OriginalRecipient: string;
  ReplyTo: string;
  Subject: string;
  MessageID: string;
  Date: string;
  MailboxHash: string;
  TextBody: string;
  HtmlBody: string;
  StrippedTextReply: string;
  Tag: string;
  Headers: { Name: string; Value: string }[];
  Attachments: InboundAttachment[];
  RepliedToMessageID: string | null;
  Authentication: Authentication;
  /** Every RCPT address of the transaction that the route received (OriginalRecipient is the first), with its `+tag` (docs/adr/0807). */
  OriginalRecipients: { Email: string; MailboxHash: string }[];
}

export interface PayloadInput {
  id: string;
  accountId: string;
  raw: Buffer;
  originalRecipient: string;
  mailboxHash: string;
  /** Every recipient of the route in the transaction; absent (a row stored before them), the original recipient alone. */
  recipients?: { Email: string; MailboxHash: string }[];
  envelope: { mailFrom: string; remoteIp: string; helo: string };
  inlineBytes: number;
  /** The signed URL of the attachment at `index` (its position in Attachments). */
  downloadUrl: (index: number) => string;
  /** The Mailroom message (of the account) one of these Message-IDs names. */
  findReplied: (refs: { id: string; domain: string }[]) => Promise<string | undefined>;
  /** DNS answers for SPF, DKIM and DMARC (tests; by default the system's resolver). */
  resolver?: DNSResolver;
  /** Host name this server receives as (SPF's receiving MTA). */
  mta: string;
}

/**
 * What the parsers read: a message of one slice as the Buffer itself (a stream of one slice
 * cost mailparser twice the CPU of the Buffer, measured at 10 KB), a larger one as slices with
 * a turn of the event loop between them (the parsers then yield too).
 */
const slices = (raw: Buffer): Buffer | Readable => (raw.length <= SLICE_BYTES ? raw : rawSlices(raw));

function addresses(value: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const out: EmailAddress[] = [];
  const walk = (items: EmailAddress[]) => {
    for (const a of items) {
      if (a.group) walk(a.group);
      else out.push(a);
    }
  };
  for (const o of list) walk(o.value);
  return out;
}

function full(a: EmailAddress): AddressFull {
  const email = a.address ?? "";
  return { Email: email, Name: a.name ?? "", MailboxHash: parseAddress(email)?.tag ?? "" };
}

function text(value: AddressObject | AddressObject[] | undefined): string {
  if (value === undefined) return "";
  return (Array.isArray(value) ? value : [value]).map((o) => o.text).join(", ");
}

/** A payload as built from the raw message: `Content` empty, each inline attachment's bytes beside it, by position. */
export interface BuiltInboundPayload {
  payload: InboundPayload;
  inlineContents: (Buffer | undefined)[];
}

export async function buildInboundPayload(input: PayloadInput): Promise<BuiltInboundPayload> {
  // mailparser's HTML-to-text is not linear in the nesting (docs/adr/0805): the text of an HTML-only message is ours.
  const parsed = await simpleParser(slices(input.raw), { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true, skipHtmlToText: true });
  const from = addresses(parsed.from)[0];
  const to = addresses(parsed.to);
  const cc = addresses(parsed.cc);
  const bcc = addresses(parsed.bcc);
  const headerValue = (name: string) => {
    const h = parsed.headerLines.find((l) => l.key === name);
    return h ? h.line.slice(h.line.indexOf(":") + 1).trim() : "";
  };
  const refs = mailroomReferences(headerValue("in-reply-to"), headerValue("references"));
  const [replied, auth] = await Promise.all([input.findReplied(refs), authenticationOf(input)]);
  const textBody = await messageText(parsed.text, parsed.html);
  const inline = (a: { size: number }) => a.size <= input.inlineBytes;
  const payload: InboundPayload = {
    From: from?.address ?? "",
    FromName: from?.name ?? "",
    FromFull: from ? full(from) : { Email: "", Name: "", MailboxHash: "" },
    To: text(parsed.to),
    ToFull: to.map(full),
    Cc: text(parsed.cc),
    CcFull: cc.map(full),
    Bcc: text(parsed.bcc),
    BccFull: bcc.map(full),
    OriginalRecipient: input.originalRecipient,
    ReplyTo: text(parsed.replyTo),
    Subject: parsed.subject ?? "",
    MessageID: input.id,
    Date: headerValue("date"),
    MailboxHash: input.mailboxHash,
    TextBody: textBody,
    HtmlBody: typeof parsed.html === "string" ? parsed.html : "",
    StrippedTextReply: strippedTextReply(textBody),
    Tag: headerValue("x-tag"),
    Headers: parsed.headerLines.map((h) => {
      const i = h.line.indexOf(":");
      return { Name: h.line.slice(0, i).trim(), Value: unfold(h.line.slice(i + 1)) };
    }),
    Attachments: parsed.attachments.map((a, index) => ({
      Name: a.filename ?? "",
      Content: "",
      ContentType: a.contentType,
      ContentLength: a.size,
      ContentID: a.contentId ? stripBrackets(a.contentId) : "",
      ...(!inline(a) && { DownloadURL: input.downloadUrl(index) }),
    })),
    RepliedToMessageID: replied ?? null,
    Authentication: auth,
    OriginalRecipients: input.recipients ?? [{ Email: input.originalRecipient, MailboxHash: input.mailboxHash }],
  };
  return { payload, inlineContents: parsed.attachments.map((a) => (inline(a) ? a.content : undefined)) };
}

/** A header value on one line (folding whitespace as one space). Linear. */
function unfold(value: string): string {
  return value
    .split(/\r?\n/)
    .map((l, i) => (i === 0 ? l : l.replace(/^[ \t]+/, " ")))
    .join("")
    .trim();
}

function stripBrackets(id: string): string {
  const t = id.trim();
  return t.startsWith("<") && t.endsWith(">") ? t.slice(1, -1) : t;
}

/** The attachment at `index` of a stored message (the signed download route). */
export async function attachmentOf(raw: Buffer, index: number): Promise<{ name: string; contentType: string; content: Buffer } | undefined> {
  const parsed = await simpleParser(slices(raw), { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true, skipHtmlToText: true });
  const a = parsed.attachments[index];
  return a && { name: a.filename ?? "attachment", contentType: a.contentType, content: a.content };
}

type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * A string as stored and posted: the payload is kept as jsonb, which holds
 * neither U+0000 nor a lone surrogate, so each becomes U+FFFD (docs/contract.md
 * §13.4). Before, a NUL in a text part failed every attempt to post the message.
 */
export function storableText(value: string): string {
  const s = value as WellFormedString;
  const formed = s.isWellFormed() ? value : s.toWellFormed();
  return formed.includes("\u0000") ? formed.replaceAll("\u0000", "\uFFFD") : formed;
}

const storableStrings = (_key: string, value: unknown) => (typeof value === "string" ? storableText(value) : value);

/**
 * JSON.stringify escapes U+0000 as `\u0000` and a lone surrogate as `\udXXX`, and nothing
 * else as either: text without them needs no replacer, which costs the serializer its fast
 * path (a fifth of building a 10 KB message's JSON, profiled).
 */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/;

/** The JSON of a value whose strings are all storable (storableText), as JSON.stringify orders it. */
function storableJson(value: unknown): string {
  const fast = JSON.stringify(value);
  return UNSTORABLE_ESCAPE.test(fast) ? JSON.stringify(value, storableStrings) : fast;
}

/** Attachment bytes encoded per turn of the event loop: a multiple of 3, so that the base64 pieces join without padding. */
const BASE64_SLICE_BYTES = 3 * 256 * 1024;

/**
 * The payload's JSON as UTF-8 bytes: `JSON.stringify` of the payload with
 * each inline attachment's base64 in its `Content`, key order included. The
 * base64 is written straight into the output, 768 KB of attachment per turn
 * of the event loop (base64 needs no escaping): for a 10 MB message, the
 * base64 string, the serializer's walk over it and its copy into bytes were
 * each 40–100 ms on the event loop (docs/adr/0803).
 */
export async function payloadJsonBytes({ payload, inlineContents }: BuiltInboundPayload): Promise<Buffer> {
  const KEY = '"Attachments":[]';
  const CONTENT = '"Content":""';
  const outer = storableJson({ ...payload, Attachments: [] });
  const at = outer.indexOf(KEY);
  const parts: (string | Buffer)[] = [`${outer.slice(0, at)}"Attachments":[`];
  payload.Attachments.forEach((a, index) => {
    const shell = storableJson({ ...a, Content: "" });
    const open = shell.indexOf(CONTENT) + CONTENT.length - 1; // just after the opening quote of the value
    parts.push(`${index > 0 ? "," : ""}${shell.slice(0, open)}`);
    const content = inlineContents[index];
    if (content && content.length > 0) parts.push(content);
    parts.push(shell.slice(open));
  });
  parts.push(`]${outer.slice(at + KEY.length)}`);
  const size = parts.reduce((n, p) => n + (typeof p === "string" ? Buffer.byteLength(p) : Math.ceil(p.length / 3) * 4), 0);
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const part of parts) {
    if (typeof part === "string") {
      offset += out.write(part, offset, "utf8");
      continue;
    }
    for (let i = 0; i < part.length; i += BASE64_SLICE_BYTES) {
      await nextTurn();
      offset += out.write(part.subarray(i, i + BASE64_SLICE_BYTES).toString("base64"), offset, "latin1");
    }
  }
  if (offset !== size) throw new Error(`inbound payload JSON: ${offset} bytes written of ${size}`);
  return out;
}
