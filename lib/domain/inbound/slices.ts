import { Readable } from "node:stream";
import { setImmediate as turn } from "node:timers/promises";

/**
 * A stored message as a stream of 16 KB slices with a turn of the event
 * loop (a macrotask) between them, for the MIME parsers (mailsplit,
 * mailparser, mailauth). Stream callbacks alone run on microtasks and
 * process.nextTick, which would carry a 10 MB message through a parser
 * without the event loop turning once (docs/adr/0803).
 */
/** The slice size: one slice is parsed without a turn of the event loop. */
export const SLICE_BYTES = 16 * 1024;

export function rawSlices(raw: Buffer, slice = SLICE_BYTES): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < raw.length; i += slice) {
        if (i > 0) await turn();
        yield raw.subarray(i, i + slice);
      }
    })(),
  );
}
