// Large values put together a slice per turn of the event loop: a leaf every
// layer may import (the SMTP servers, the inbound post, its storage and the API).
import { setImmediate as nextTurn } from "node:timers/promises";

/** Bytes copied or encoded per turn of the event loop: about a millisecond of work. */
const SLICE = 1024 * 1024;

/**
 * The chunks as one Buffer, about a megabyte copied per turn: one
 * Buffer.concat of a 10 MB message held the loop 45–60 ms (the copy touches
 * fresh pages), measured by test/integration/inbound-stall.test.ts.
 */
export async function concatInTurns(chunks: readonly Buffer[], total = chunks.reduce((n, c) => n + c.length, 0)): Promise<Buffer> {
  if (total <= SLICE) return Buffer.concat(chunks, total);
  const out = Buffer.allocUnsafe(total);
  let offset = 0;
  let sinceTurn = 0;
  for (const chunk of chunks) {
    if (sinceTurn >= SLICE) {
      await nextTurn();
      sinceTurn = 0;
    }
    offset += chunk.copy(out, offset);
    sinceTurn += chunk.length;
  }
  return offset === total ? out : out.subarray(0, offset);
}

/**
 * The UTF-8 bytes of the strings one after another, in one buffer, a
 * megabyte of text encoded per turn: Buffer.from of a 14 MB JSON text
 * measured 40 ms in one block. Slices end on whole characters (a surrogate
 * pair is never cut in two).
 */
export async function utf8InTurns(...texts: string[]): Promise<Buffer> {
  const total = texts.reduce((n, t) => n + t.length, 0);
  if (total <= SLICE) return Buffer.from(texts.join(""), "utf8");
  const out = Buffer.allocUnsafe(texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0));
  let offset = 0;
  for (const text of texts) {
    for (let at = 0; at < text.length; ) {
      if (offset > 0) await nextTurn();
      let end = Math.min(at + SLICE, text.length);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1; // keep a high surrogate with its pair
      offset += out.write(text.slice(at, end), offset, "utf8");
      at = end;
    }
  }
  return out;
}
