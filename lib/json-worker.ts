import { Worker } from "node:worker_threads";
import { WorkerPool } from "./worker-pool";

/**
 * JSON of large documents (a 10 MB request body, a message's stored content)
 * parsed and serialised on worker threads, so that those single steps of
 * 10–60 ms (several times that on a loaded machine) never hold the event
 * loop that serves every tenant (the stall budget, docs/adr/0310).
 *
 * The worker runs the same V8 JSON.parse / JSON.stringify; values cross by
 * structured clone, which keeps plain JSON values exactly (numbers as the
 * same doubles, -0, key order, an own `__proto__` key). Whatever the worker
 * cannot do (a value too deeply nested to clone, a worker that died) is done
 * here instead, as before: the result never depends on where it ran.
 *
 * The worker is plain JavaScript given as source (`eval`), so it loads the
 * same under tsx, vitest and the built server.
 */

/** Below this many bytes (or characters) the work stays on the event loop: the round trip would cost more. */
export const OFFLOAD_MIN_BYTES = 512 * 1024;

const WORKERS = 2;

const SOURCE = `
const { parentPort } = require("node:worker_threads");
const decoder = new TextDecoder("utf-8", { fatal: true });
// Start and end offsets of the top-level items of bytes that JSON.parse has just accepted as an
// array of count items. Only ASCII bytes are structural in UTF-8 JSON, and a valid document needs
// no error handling: a depth counter that skips strings (and their escapes) finds every item.
function itemRanges(bytes, count) {
  const ranges = new Uint32Array(count * 2);
  const space = (b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
  let i = 0;
  while (bytes[i] !== 0x5b) i++;
  i++;
  let depth = 0, inString = false, n = 0, start = -1, last = -1;
  for (; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
      last = i;
      continue;
    }
    if (space(b)) continue;
    if (depth === 0 && (b === 0x2c || b === 0x5d)) {
      if (start >= 0) {
        ranges[n * 2] = start;
        ranges[n * 2 + 1] = last + 1;
        n++;
      }
      start = -1;
      if (b === 0x5d) break;
      continue;
    }
    if (start < 0) start = i;
    last = i;
    if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) depth++;
    else if (b === 0x5d || b === 0x7d) depth--;
  }
  return ranges;
}
parentPort.on("message", ({ op, data }) => {
  if (op === "parseItems") {
    // A JSON array, validated whole by JSON.parse, whose items come back as byte ranges of the same
    // bytes (moved there and back, not copied): the event loop parses each item in its own step, and
    // no second copy of the document (a clone, or one buffer per item) ever exists beside the bytes.
    let value;
    try {
      value = JSON.parse(decoder.decode(data));
    } catch {
      return parentPort.postMessage({ ok: false, bytes: data }, [data.buffer]);
    }
    // Not an array, or one of more items than any caller takes (a batch has 500): refused by the caller.
    if (!Array.isArray(value) || value.length > 10000) return parentPort.postMessage({ ok: true, notArray: true, bytes: data }, [data.buffer]);
    const count = value.length;
    value = undefined;
    const ranges = itemRanges(data, count);
    parentPort.postMessage({ ok: true, ranges, bytes: data }, [data.buffer, ranges.buffer]);
  } else if (op === "parse" || op === "parseText") {
    // Bytes given to the worker go back with the answer (moved, not copied): the caller may still need them.
    const back = op === "parse" ? [data.buffer] : [];
    const bytes = op === "parse" ? data : undefined;
    let value;
    try {
      value = JSON.parse(op === "parse" ? decoder.decode(data) : data);
    } catch {
      return parentPort.postMessage({ ok: false, bytes }, back);
    }
    try {
      parentPort.postMessage({ ok: true, value, bytes }, back);
    } catch {
      // Too deeply nested to clone: the caller parses it itself.
      parentPort.postMessage({ unclonable: true, bytes }, back);
    }
  } else {
    const bytes = new TextEncoder().encode(JSON.stringify(data));
    parentPort.postMessage({ bytes }, [bytes.buffer]);
  }
});
`;

// eslint-disable-next-line no-restricted-syntax -- per process: its threads are the process's CPU (WORKERS however many contexts it holds), and a reply depends only on its message
const pool = new WorkerPool(WORKERS, () => new Worker(SOURCE, { eval: true }), "JSON worker");

function submit(op: "parse" | "parseText" | "parseItems" | "stringify", data: unknown, transfer?: ArrayBuffer[]): Promise<unknown> {
  return pool.submit({ op, data }, transfer ? { transfer } : {});
}

/**
 * JSON.parse of UTF-8 bytes (fatal on invalid UTF-8), on a worker: `ok` with
 * the value, `ok: false` for bytes that are not UTF-8 JSON, or `ok: undefined`
 * when the caller must parse them itself (too deeply nested to cross, or no
 * worker). `bytes` are the bytes to use from then on: when they own their
 * whole buffer they are moved to the worker and back, not copied, and the
 * array passed in is left empty (detached).
 */
export async function parseJsonOffThread(
  bytes: Uint8Array,
): Promise<({ ok: true; value: unknown } | { ok: false } | { ok: undefined }) & { bytes: Uint8Array }> {
  const movable = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  let reply: { ok?: boolean; value?: unknown; unclonable?: boolean; bytes?: Uint8Array };
  try {
    reply = (await submit("parse", bytes, movable ? [bytes.buffer as ArrayBuffer] : undefined)) as typeof reply;
  } catch (err) {
    // No worker: the bytes are still here unless a worker took them and then died (out of memory): that is an internal error.
    if (movable && bytes.byteLength === 0 && bytes.buffer.byteLength === 0) throw new Error("the JSON worker exited holding a request body", { cause: err });
    return { ok: undefined, bytes };
  }
  const back = reply.bytes ?? bytes;
  if (reply.unclonable) return { ok: undefined, bytes: back };
  return reply.ok ? { ok: true, value: reply.value, bytes: back } : { ok: false, bytes: back };
}

/**
 * A JSON array of UTF-8 bytes validated by JSON.parse on a worker, which
 * answers where each item lies in the bytes (`ranges`: start and end offset
 * per item). The caller parses each item from its range in its own step and
 * may yield between them: no whole-document step on the event loop, and no
 * copy of the document beside its bytes (a 50 MB batch cloned back, or
 * serialised item by item, was 50 MB more of heap or of external memory,
 * whose garbage collection held the event loop past the stall budget).
 * `notArray`: valid JSON, but no array; an array of more than 10,000 items
 * counts as `notArray` (no caller takes that many). `ok: undefined`: the
 * caller must parse the bytes itself (no worker). The bytes move to the
 * worker and back as with parseJsonOffThread.
 */
export async function parseJsonItemsOffThread(
  bytes: Uint8Array,
): Promise<({ ok: true; ranges?: Uint32Array; notArray?: true } | { ok: false } | { ok: undefined }) & { bytes: Uint8Array }> {
  const movable = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  if (!movable) return { ok: undefined, bytes };
  let reply: { ok?: boolean; ranges?: Uint32Array; notArray?: true; bytes?: Uint8Array };
  try {
    reply = (await submit("parseItems", bytes, [bytes.buffer as ArrayBuffer])) as typeof reply;
  } catch (err) {
    if (bytes.byteLength === 0 && bytes.buffer.byteLength === 0) throw new Error("the JSON worker exited holding a request body", { cause: err });
    return { ok: undefined, bytes };
  }
  const back = reply.bytes ?? bytes;
  if (!reply.ok) return { ok: false, bytes: back };
  return reply.notArray ? { ok: true, notArray: true, bytes: back } : { ok: true, ranges: reply.ranges ?? new Uint32Array(0), bytes: back };
}

/** JSON.parse(text), on a worker when `text` is large; throws as JSON.parse does. */
export async function parseJsonText(text: string): Promise<unknown> {
  if (text.length >= OFFLOAD_MIN_BYTES) {
    try {
      const reply = (await submit("parseText", text)) as { ok?: boolean; value?: unknown };
      if (reply.ok) return reply.value;
    } catch {
      // No worker: below, as before.
    }
  }
  return JSON.parse(text);
}

/** JSON.stringify(value) as UTF-8 bytes; on a worker when `value` is large (`size` is the caller's estimate, in characters). */
export async function stringifyJson(value: unknown, size: number): Promise<Buffer> {
  if (size >= OFFLOAD_MIN_BYTES) {
    try {
      const { bytes } = (await submit("stringify", value)) as { bytes: Uint8Array };
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch {
      // Not cloneable or no worker: below, as before.
    }
  }
  return Buffer.from(JSON.stringify(value), "utf8");
}
