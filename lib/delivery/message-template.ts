import { randomBytes } from "node:crypto";
import MailComposer from "nodemailer/lib/mail-composer";
import MimeNode from "nodemailer/lib/mime-node";
import { composerOptions, STREAMED_BODY_CHARS, type BuildOptions } from "./build-message";
import { dkimHeader, signDkim, splitBodyHash } from "./dkim";

/**
 * The copies of one message to several recipients, composed once (docs/adr/0320).
 *
 * nodemailer composes the message once per job with two markers: one where
 * the List-Unsubscribe targets go, one as the HTML part's content. A copy is
 * then the template's bytes with the recipient's targets in the header and
 * the recipient's HTML part (its headers and encoded body, built by
 * nodemailer's MimeNode on its own, so the part picks its own transfer
 * encoding as it would in a whole composition) in place of the marker part;
 * then its own DKIM signature, whose body hash canonicalises only that part
 * (what comes before and after it is canonicalised once: dkim.ts
 * splitBodyHash). Headers, the text part, attachments and boundaries are
 * composed, encoded and canonicalised once, not once per recipient.
 *
 * Only for bodies under STREAMED_BODY_CHARS (a larger one is composed per
 * copy, streamed: build-message.ts) and messages with an HTML body.
 */

export interface CopyTemplate {
  /** The copy of one recipient: its tracked HTML and List-Unsubscribe targets, signed when the message is. */
  build(copy: { html: string | readonly string[]; unsubscribe?: { url: string; mailto?: string } }): Promise<Buffer>;
}

/** The per-copy options BuildOptions also carries; the template takes the rest. */
export type TemplateOptions = Omit<BuildOptions, "html" | "unsubscribe"> & { hasUnsubscribe: boolean };

const HTML_CONTENT_TYPE = "text/html; charset=utf-8";

/**
 * Whether copies of this message can come from a template: an HTML body that
 * is a child part (with a text part or attachments; alone, it is the whole
 * message and there is nothing to share), small enough to compose in one go.
 */
export function templateApplies(content: BuildOptions["content"]): boolean {
  if (content.html === undefined || (content.text === undefined && content.attachments.length === 0)) return false;
  // Room for the tracked URLs: a copy must stay under the streaming threshold like its template.
  return content.html.length * 2 < STREAMED_BODY_CHARS && (content.text?.length ?? 0) < STREAMED_BODY_CHARS;
}

const unsubscribeValue = (u: { url: string; mailto?: string }) =>
  u.mailto ? `<${u.url}>, <mailto:${u.mailto}?subject=unsubscribe>` : `<${u.url}>`;

export async function createCopyTemplate(options: TemplateOptions): Promise<CopyTemplate> {
  // Random markers: no message content can contain them by chance.
  const tag = randomBytes(12).toString("hex");
  const htmlMarker = `mailroom-html-${tag}`;
  const unsubscribeMarker = `mailroom-unsubscribe-${tag}`;
  const mail = composerOptions({ ...options, html: htmlMarker, unsubscribe: options.hasUnsubscribe ? { url: unsubscribeMarker } : undefined });
  if (options.hasUnsubscribe) {
    // The prepared value is written verbatim: the marker alone, replaced per copy.
    for (const h of mail.headers as { key: string; value: { prepared: boolean; value: string } | string }[]) {
      if (h.key === "List-Unsubscribe") h.value = { prepared: true, value: unsubscribeMarker };
    }
  }
  const composer = new MailComposer(mail);
  const root = composer.compile();
  const template = await root.build();
  const textEncoding = ((root as unknown as { textEncoding?: string }).textEncoding || undefined) as "B" | "Q" | undefined;

  // Searched in the bytes (the markers are ASCII): a template with a 10 MB attachment is never one string (docs/adr/0310).
  const markerAt = template.indexOf(htmlMarker);
  if (markerAt < 0 || template.indexOf(htmlMarker, markerAt + 1) >= 0) throw new Error("message template: the HTML marker is not found once");
  // The HTML part begins after its boundary line; its bytes (headers, blank line, marker) are replaced per copy.
  const partStart = template.lastIndexOf("\r\n--", markerAt);
  const partHeadersAt = partStart < 0 ? -1 : template.indexOf("\r\n", partStart + 2) + 2;
  if (partHeadersAt <= 1 || partHeadersAt > markerAt) throw new Error("message template: the HTML part is not a child part");
  const partEnd = markerAt + htmlMarker.length;

  const headEnd = template.indexOf("\r\n\r\n");
  const text = template.toString("latin1", 0, headEnd);
  const unsubscribeAt = options.hasUnsubscribe ? text.indexOf(unsubscribeMarker) : -1;
  if (options.hasUnsubscribe && unsubscribeAt < 0) throw new Error("message template: the List-Unsubscribe marker is not in the header");
  const unsubscribeEnd = unsubscribeAt < 0 ? 0 : unsubscribeAt + unsubscribeMarker.length;

  const beforeUnsubscribe = template.subarray(0, unsubscribeAt < 0 ? partHeadersAt : unsubscribeAt);
  const beforePart = unsubscribeAt < 0 ? Buffer.alloc(0) : template.subarray(unsubscribeEnd, partHeadersAt);
  const afterPart = template.subarray(partEnd);
  // The header block of a copy, around its List-Unsubscribe targets (what the signature covers).
  const headBefore = text.slice(0, unsubscribeAt < 0 ? headEnd : unsubscribeAt);
  const headAfter = unsubscribeAt < 0 ? "" : text.slice(unsubscribeEnd, headEnd);
  // The body hash: what precedes the HTML part and what follows it are canonicalised once (dkim.ts).
  // The part's last line ends with the template's line break before the next boundary line.
  const bodyHash =
    options.dkim && afterPart.subarray(0, 4).equals(Buffer.from("\r\n--"))
      ? await splitBodyHash(template.subarray(headEnd + 4, partHeadersAt), afterPart.subarray(2))
      : undefined;

  /** The HTML part alone, as nodemailer writes it as a child of the alternative (its headers, blank line, encoded body). */
  const htmlPart = async (html: string): Promise<Buffer> => {
    const parent = new MimeNode("multipart/alternative", { textEncoding, disableFileAccess: true, disableUrlAccess: true, baseBoundary: tag });
    const part = parent.createChild(HTML_CONTENT_TYPE, { textEncoding, disableFileAccess: true, disableUrlAccess: true });
    part.setContent(html);
    const built = await part.build();
    // A child part's stream ends with the line break the parent's next boundary follows: the template keeps that one.
    return built.subarray(0, built.length - trailingBreak(built));
  };

  return {
    async build(copy) {
      const html = typeof copy.html === "string" ? copy.html : copy.html.join("");
      let targets = "";
      if (unsubscribeAt >= 0) {
        if (!copy.unsubscribe) throw new Error("message template: this message's copies carry List-Unsubscribe");
        targets = unsubscribeValue(copy.unsubscribe);
      }
      const part = await htmlPart(html);
      const pieces = unsubscribeAt >= 0 ? [beforeUnsubscribe, Buffer.from(targets, "latin1"), beforePart, part, afterPart] : [beforeUnsubscribe, part, afterPart];
      if (!options.dkim) return Buffer.concat(pieces);
      if (!bodyHash) return signDkim(Buffer.concat(pieces), options.dkim);
      const bh = await bodyHash.hash(Buffer.concat([part, afterPart.subarray(0, 2)]));
      // One copy of the bytes: the signature header and the pieces concatenated once.
      return Buffer.concat([dkimHeader(headBefore + targets + headAfter, bh, options.dkim), ...pieces]);
    },
  };
}

/** Bytes of the line break a built child part ends with (0 when it ends without one). */
function trailingBreak(b: Buffer): number {
  return b.length >= 2 && b[b.length - 2] === 0x0d && b[b.length - 1] === 0x0a ? 2 : 0;
}
