import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Joiner, Rewriter, Splitter, Streamer } from "@zone-eu/mailsplit";
import type { MimeNode } from "@zone-eu/mailsplit";
import { editHeaderBlock, toCrlf } from "../domain/submission/header-block";
import { signDkim, type DkimKey } from "./dkim";

/**
 * The copy of an SMTP submission (a message stored as raw MIME, docs/adr/0700)
 * for one recipient: the message's own bytes with List-Unsubscribe and
 * List-Unsubscribe-Post set, the tracked HTML in its first text/html body
 * part (re-encoded in its own transfer encoding, charset UTF-8), then a DKIM
 * signature. Nothing else is changed: structure, attachments, inline images,
 * custom headers stay byte for byte. MIME is read with mailsplit (the
 * splitter mailparser is built on), streaming, never with ad-hoc patterns.
 */

export interface RawCopyOptions {
  raw: Buffer;
  /** The tracked HTML of the first text/html body part (whole or in pieces); absent: the part is left as it is. */
  html?: string | readonly string[];
  unsubscribe?: { url: string; mailto?: string };
  dkim?: DkimKey;
}

/** The body part tracking applies to: the first text/html that is not an attachment. */
const isHtmlBody = (node: MimeNode) => node.contentType === "text/html" && node.disposition !== "attachment";

function charsetDecoder(node: MimeNode): TextDecoder | undefined {
  try {
    return new TextDecoder(node.charset || "us-ascii");
  } catch {
    return undefined; // a charset TextDecoder does not know: the part is not tracked
  }
}

/** The decoded text of the first text/html body part, or undefined (none, or an unknown charset). */
export async function extractHtmlPart(raw: Buffer): Promise<string | undefined> {
  let found = false;
  let html: string | undefined;
  const streamer = new Streamer((node: MimeNode) => !found && isHtmlBody(node) && (found = true));
  streamer.on("node", (data: { node: MimeNode; decoder: Readable; done: () => void }) => {
    const decoder = charsetDecoder(data.node);
    const chunks: Buffer[] = [];
    data.decoder.on("data", (c: Buffer) => chunks.push(c));
    data.decoder.on("end", () => {
      if (decoder) html = decoder.decode(Buffer.concat(chunks));
      data.done();
    });
  });
  await pipeline(Readable.from([raw]), new Splitter(), streamer, new Joiner(), sink([]));
  return html;
}

export async function buildRawCopy(options: RawCopyOptions): Promise<Buffer> {
  let raw = options.raw;
  if (options.html !== undefined) raw = await replaceHtmlPart(raw, options.html);
  if (options.unsubscribe) {
    const { url, mailto } = options.unsubscribe;
    const targets = [`<${url}>`, ...(mailto ? [`<mailto:${mailto}?subject=unsubscribe>`] : [])];
    raw = editHeaderBlock(raw, (h) => {
      // Mailroom's unsubscribe targets replace the client's: unsubscribes are recorded as suppressions.
      h.remove("list-unsubscribe");
      h.remove("list-unsubscribe-post");
      h.add("List-Unsubscribe", targets.join(", "));
      h.add("List-Unsubscribe-Post", "List-Unsubscribe=One-Click");
    });
  }
  return options.dkim ? await signDkim(raw, options.dkim) : raw;
}

async function replaceHtmlPart(raw: Buffer, html: string | readonly string[]): Promise<Buffer> {
  let found = false;
  const rewriter = new Rewriter((node: MimeNode) => !found && isHtmlBody(node) && charsetDecoder(node) !== undefined && (found = true));
  rewriter.on("node", (data: { node: MimeNode; decoder: Readable; encoder: Writable }) => {
    data.node.setCharset("utf-8");
    data.decoder.resume(); // the original body is dropped
    data.decoder.on("end", () => {
      for (const piece of typeof html === "string" ? [html] : html) data.encoder.write(Buffer.from(piece, "utf8"));
      data.encoder.end();
    });
  });
  const out: Buffer[] = [];
  await pipeline(Readable.from([raw]), new Splitter(), rewriter, new Joiner(), sink(out));
  // mailsplit's encoders end lines with a bare LF.
  return toCrlf(Buffer.concat(out));
}

function sink(out: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      out.push(chunk);
      callback();
    },
  });
}
