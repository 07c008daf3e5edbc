import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Splitter, type MimeNode } from "@zone-eu/mailsplit";
import { rawSlices } from "../domain/inbound/slices";

/**
 * The structure of a message for an inbound route, checked before it is
 * stored (docs/adr/0802): at most `maxParts` MIME parts, nested at most
 * `maxDepth` deep, `maxHeaderLines` header fields in all, `maxHeadBytes`
 * of header per part and `maxDkimSignatures` DKIM-Signature fields in the
 * message's own header (docs/adr/0808: a verifier hashes the body once per
 * signature's length and canonicalisation). Read by mailsplit (the splitter mailparser is built
 * on), streaming in slices so that the event loop turns between them; a
 * message over a limit is refused with a clear SMTP reply and never stored.
 */

export interface MimeLimits {
  maxParts: number;
  maxDepth: number;
  maxHeaderLines: number;
  maxHeadBytes: number;
  maxDkimSignatures: number;
}

export const INBOUND_MIME_LIMITS: MimeLimits = { maxParts: 500, maxDepth: 20, maxHeaderLines: 2000, maxHeadBytes: 256 * 1024, maxDkimSignatures: 50 };

const SLICE = 16 * 1024;

class LimitExceeded extends Error {}

/** Undefined when the message is within the limits, else why it is not (for the SMTP reply). */
export async function mimeLimitViolation(raw: Buffer, limits: MimeLimits = INBOUND_MIME_LIMITS): Promise<string | undefined> {
  let parts = 0;
  let headerLines = 0;
  const check = new Writable({
    objectMode: true,
    write(chunk: { type: string }, _enc, done) {
      // The splitter emits each part's node itself (type "node"), then its body chunks.
      if (chunk.type !== "node") return done();
      const node = chunk as MimeNode;
      parts++;
      if (parts > limits.maxParts) return done(new LimitExceeded(`more than ${limits.maxParts} MIME parts`));
      let depth = 0;
      for (let n: MimeNode | false = node; n && depth <= limits.maxDepth; n = n.parentNode) depth++;
      if (depth > limits.maxDepth) return done(new LimitExceeded(`MIME parts nested more than ${limits.maxDepth} deep`));
      headerLines += node.headers ? node.headers.getList().length : 0;
      if (headerLines > limits.maxHeaderLines) return done(new LimitExceeded(`more than ${limits.maxHeaderLines} header fields`));
      // Only the message's own header counts: a forwarded message's signatures are body to this one.
      if (!node.parentNode && node.headers && node.headers.get("dkim-signature").length > limits.maxDkimSignatures) {
        return done(new LimitExceeded(`more than ${limits.maxDkimSignatures} DKIM-Signature fields`));
      }
      done();
    },
  });
  const source = rawSlices(raw, SLICE);
  try {
    await pipeline(source, new Splitter({ maxHeadSize: limits.maxHeadBytes, maxChildNodes: limits.maxParts + 1 }), check);
    return undefined;
  } catch (err) {
    if (err instanceof LimitExceeded) return err.message;
    if ((err as { code?: string }).code === "EMAXLEN") return (err as Error).message;
    throw err;
  }
}
