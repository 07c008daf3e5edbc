import { simpleParser, type ParsedMail } from "mailparser";
import { messageText } from "../../tracking/html-text";
import { rawSlices } from "./slices";

/** A part of a stored message, for a page that shows it (filename, type, size, bytes as base64). */
export interface ReadPart {
  filename: string;
  contentType: string;
  disposition: string;
  /** Without angle brackets; "" when the part has none. */
  contentId: string;
  size: number;
  contentBase64: string;
}

/** A stored raw message as the dashboard's message views show it: header lines unfolded, the bodies, the parts. */
export interface ReadRawMessage {
  parsed: ParsedMail;
  headers: { name: string; value: string }[];
  html: string | null;
  text: string | null;
  attachments: ReadPart[];
}

/**
 * Parses a message Mailroom stored (a sent message's composition, a sandbox capture): in slices,
 * and without mailparser's HTML-to-text, which is not linear in the nesting (docs/adr/0805); the
 * text part, else our tokenizer's text of the HTML.
 */
export async function readRawMessage(raw: Buffer): Promise<ReadRawMessage> {
  const parsed = await simpleParser(rawSlices(raw), { skipImageLinks: true, skipHtmlToText: true });
  const headers = parsed.headerLines.map((h) => {
    const i = h.line.indexOf(":");
    return { name: h.line.slice(0, i), value: h.line.slice(i + 1).replace(/\r?\n[ \t]+/g, " ").trim() };
  });
  return {
    parsed,
    headers,
    html: typeof parsed.html === "string" ? parsed.html : null,
    text: (await messageText(parsed.text, parsed.html)) || (parsed.text ?? null),
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename ?? "",
      contentType: a.contentType,
      disposition: a.contentDisposition ?? "attachment",
      contentId: (a.contentId ?? "").replace(/^<|>$/g, ""),
      size: a.size,
      contentBase64: a.content.toString("base64"),
    })),
  };
}
