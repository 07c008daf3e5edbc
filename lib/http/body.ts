import { setImmediate as checkPhase, setTimeout as timersPhase } from "node:timers/promises";
import v8 from "node:v8";
import { JsonNumberText } from "../domain/shared/json-number";
import { OFFLOAD_MIN_BYTES, parseJsonItemsOffThread, parseJsonOffThread } from "../json-worker";
import { readBytes } from "../read-bytes";

export { readBytes };

/**
 * Reads a JSON request body with a byte cap (docs/contract.md §5.1: over 15 MiB → 422;
 * malformed JSON or invalid UTF-8 → 422). Never throws for client input.
 * The raw bytes come back too (an Idempotency-Key request is identified by their hash).
 *
 * Numbers under the keys named in `exactNumbersAt` that JSON.parse cannot
 * hold exactly (beyond 2^53, or not integers) come back as JsonNumberText,
 * their exact source text. That text is V8's own: JSON.parse's reviver
 * receives each value's source (`context.source`, the "JSON.parse source
 * text access" feature: on by default from Node 21, behind a V8 flag on
 * Node 20, which is switched on below). The second, reviver pass is taken
 * only when such a number is present, after yielding to the event loop, and
 * only for bodies of at most MAX_VALUES_FOR_SOURCE values, so that neither
 * pass blocks the loop for long (docs/adr/0104-exact-content-id.md).
 */
export type BodyResult = { ok: true; value: unknown; bytes: Uint8Array } | { ok: false; reason: "too-large" | "malformed" };

const decoder = new TextDecoder("utf-8", { fatal: true });

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;
const parseWithSource = JSON.parse as (text: string, reviver: Reviver) => unknown;

function hasSourceAccess(): boolean {
  let source: string | undefined;
  parseWithSource("[12345678901234567890]", (_key, value, context) => {
    if (typeof value === "number") source = context?.source;
    return value;
  });
  return source === "12345678901234567890";
}

/** Node 20 has the feature behind a flag; Node 21+ has it on. Without it, such numbers stay lossy numbers. */
const sourceAccess = hasSourceAccess() || (v8.setFlagsFromString("--harmony-json-parse-with-source"), hasSourceAccess());

/** A reviver costs ~2–3 µs per value: 50 000 values stay under ~150 ms. */
export const MAX_VALUES_FOR_SOURCE = 50_000;

/** Whether `value` holds, under one of `keys`, a number JSON.parse may have changed; undefined when it has too many values to look again. */
function needsSource(value: unknown, keys: ReadonlySet<string>): boolean | undefined {
  const stack: unknown[] = [value];
  let seen = 0;
  let found = false;
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== "object") continue;
    // Counted before they are pushed, one at a time: an array of millions of
    // values stops the walk at the bound (a spread of it would overflow the stack).
    const children = Array.isArray(v) ? v : Object.values(v);
    if ((seen += children.length) > MAX_VALUES_FOR_SOURCE) return undefined;
    if (!Array.isArray(v)) {
      for (const [k, child] of Object.entries(v)) {
        if (keys.has(k) && typeof child === "number" && !Number.isSafeInteger(child)) found = true;
      }
    }
    for (const child of children) stack.push(child);
  }
  return found;
}

/** Requests whose body was left unread (too large): their connection must not be reused. */
// A mark on the request object itself (gone with it), not process state.
// eslint-disable-next-line no-restricted-syntax
const unread = new WeakSet<Request>();
export function isBodyLeftUnread(request: Request): boolean {
  return unread.has(request);
}
export function markBodyLeftUnread(request: Request): void {
  unread.add(request);
}

export async function readJsonBody(
  request: Request,
  maxBytes: number,
  options: { exactNumbersAt?: readonly string[] } = {},
): Promise<BodyResult> {
  let bytes = await readBytes(request, maxBytes);
  if (!bytes) {
    unread.add(request);
    return { ok: false, reason: "too-large" };
  }
  // A large body is decoded and parsed on a worker thread (lib/json-worker.ts): the same
  // decoder and JSON.parse, one 20–60 ms step less on the event loop. Else, or when the
  // worker hands it back (too deeply nested to cross), here as before.
  let offThread: Awaited<ReturnType<typeof parseJsonOffThread>> | undefined;
  if (bytes.byteLength >= OFFLOAD_MIN_BYTES) {
    // The bytes move to the worker (no copy) and come back with its answer.
    offThread = await parseJsonOffThread(bytes);
    bytes = offThread.bytes;
  }
  if (offThread?.ok === false) return { ok: false, reason: "malformed" };
  let text: string | undefined;
  let value: unknown;
  if (offThread?.ok) value = offThread.value;
  else {
    try {
      text = decoder.decode(bytes);
    } catch {
      return { ok: false, reason: "malformed" };
    }
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, reason: "malformed" };
    }
  }
  const keys = new Set(options.exactNumbersAt ?? []);
  return { ok: true, value: await withExactNumbers(value, () => (text ??= decoder.decode(bytes)), keys), bytes };
}

/** `value`, parsed again from its text with the exact source of the numbers under `keys` when JSON.parse may have changed one. */
async function withExactNumbers(value: unknown, textOf: () => string, keys: ReadonlySet<string>): Promise<unknown> {
  if (keys.size === 0 || !sourceAccess || !needsSource(value, keys)) return value;
  const text = textOf();
  // The first parse of a large body took its share of the loop: let timers and I/O run before the second.
  await timersPhase(0);
  await checkPhase();
  return parseWithSource(text, (key, v, context) =>
    keys.has(key) && typeof v === "number" && !Number.isSafeInteger(v) && context?.source !== undefined ? new JsonNumberText(context.source) : v,
  );
}

/**
 * A JSON array body (POST /email/batch): `value` is the array, or anything
 * else the body held (the caller refuses what is not an array). A large body
 * (50 MB of 500 items) is validated on a worker, which answers where each
 * item lies in the bytes; each item is then parsed from its own bytes, one
 * per turn of the event loop, never the whole document in one step and
 * never a second copy of it (docs/adr/0310, docs/adr/0127). Exact numbers
 * are kept per item as readJsonBody keeps them.
 */
export async function readJsonArrayBody(
  request: Request,
  maxBytes: number,
  options: { exactNumbersAt?: readonly string[] } = {},
): Promise<BodyResult> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (!(declared >= OFFLOAD_MIN_BYTES)) return readJsonBody(request, maxBytes, options);
  const bytes = await readBytes(request, maxBytes);
  if (!bytes) {
    unread.add(request);
    return { ok: false, reason: "too-large" };
  }
  const parsed = await parseJsonItemsOffThread(bytes);
  if (parsed.ok === false) return { ok: false, reason: "malformed" };
  if (parsed.ok === undefined) {
    // No worker: as readJsonBody would, here.
    try {
      return { ok: true, value: JSON.parse(decoder.decode(parsed.bytes)), bytes: parsed.bytes };
    } catch {
      return { ok: false, reason: "malformed" };
    }
  }
  if (parsed.notArray) return { ok: true, value: null, bytes: parsed.bytes };
  const keys = new Set(options.exactNumbersAt ?? []);
  const ranges = parsed.ranges ?? new Uint32Array(0);
  const items: unknown[] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    // One item per turn: an item is at most one message (10 MB of content). The worker's
    // JSON.parse accepted the whole document, so each item's bytes are valid JSON on their own.
    await checkPhase();
    const text = decoder.decode(parsed.bytes.subarray(ranges[i], ranges[i + 1]));
    items.push(await withExactNumbers(JSON.parse(text), () => text, keys));
  }
  return { ok: true, value: items, bytes: parsed.bytes };
}
