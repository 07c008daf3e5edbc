import { simpleParser } from "mailparser";
import { utf8InTurns } from "../../bytes-in-turns";
import { payloadJsonBytes, type BuiltInboundPayload, type InboundPayload } from "./payload";
import { rawSlices, SLICE_BYTES } from "./slices";

/**
 * The posted JSON as it is kept for retries (docs/adr/0807): the bytes posted
 * when the inline attachments are small, else the same JSON with their
 * `Content` left empty, which a retry fills again from the raw message. Kept
 * whole, a 10 MB message with a 7.5 MB attachment was stored twice over (its
 * raw MIME and the attachment's base64 in the JSON); kept as a shell, the
 * inbound tables hold about one copy of what the sender sent. The refill
 * parses the raw message once per retry, a cost bounded by the retry schedule.
 */

/** Inline attachment bytes up to which the kept JSON is the posted bytes themselves. */
export const KEPT_INLINE_BYTES = 256 * 1024;

/** Where an attachment's emptied Content is: a key can only be this text outside a string, since quotes inside strings are escaped. */
const EMPTIED_CONTENT = '"Content":""';

/** The JSON to keep beside the posted bytes: `posted` itself, or the shell without inline attachment bytes. */
export async function keptPayloadJson(built: BuiltInboundPayload, posted: Buffer): Promise<Buffer> {
  const inline = built.inlineContents.reduce((n, c) => n + (c?.length ?? 0), 0);
  if (inline <= KEPT_INLINE_BYTES) return posted;
  return payloadJsonBytes({ payload: built.payload, inlineContents: [] });
}

/**
 * The bytes to post for a retry, from the kept JSON: as kept when nothing was
 * left out, else with each emptied inline attachment's base64 again, in the
 * first attempt's bytes (the kept text is JSON.stringify's own output, which
 * parsing and stringifying again reproduces, key order included).
 */
export async function postedPayloadJson(kept: string, raw: Buffer): Promise<Buffer> {
  if (!kept.includes(EMPTIED_CONTENT)) return utf8InTurns(kept);
  const payload = JSON.parse(kept) as InboundPayload;
  const emptied = payload.Attachments.map((a) => a.Content === "" && a.DownloadURL === undefined && a.ContentLength > 0);
  if (!emptied.some(Boolean)) return utf8InTurns(kept);
  const parsed = await simpleParser(raw.length <= SLICE_BYTES ? raw : rawSlices(raw), { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true, skipHtmlToText: true });
  const inlineContents = payload.Attachments.map((_, i) => (emptied[i] ? parsed.attachments[i]?.content : undefined));
  if (inlineContents.some((c, i) => emptied[i] && c === undefined)) throw new Error("an attachment of the kept JSON is not in the raw message");
  return payloadJsonBytes({ payload, inlineContents });
}
