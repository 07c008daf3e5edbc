import { createHash } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { httpStatusOf, type ApiErrorItem, type ErrorCode } from "../../contract/errors";

/**
 * The policy of POST /email's `Idempotency-Key` header (docs/adr/0110): what
 * a key may be, what identifies a request, what is stored of its answer, and
 * how a request with a key resolves against another that holds it. Pure, or
 * driven by callbacks; the storage is idempotency-keys.ts.
 */

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;
/** Keys are kept at least this long; maintenance removes older ones. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;

export type ParsedIdempotencyKey = { ok: true; key?: string } | { ok: false };

/**
 * The header's value (absent: no key). A key is 1–256 printable ASCII
 * characters (0x20–0x7E; HTTP has already trimmed surrounding spaces): the
 * set every client library can send unchanged and that can be logged as is.
 * Checked character by character after the length bound.
 */
export function parseIdempotencyKey(value: string | null | undefined): ParsedIdempotencyKey {
  if (value === null || value === undefined) return { ok: true };
  if (value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY_LENGTH) return { ok: false };
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return { ok: false };
  }
  return { ok: true, key: value };
}

/** Bytes hashed per turn of the event loop: about a millisecond of SHA-256. */
const HASH_SLICE_BYTES = 1024 * 1024;

/**
 * A request's identity: SHA-256 of its raw body bytes, a slice per turn of
 * the event loop. (WebCrypto's digest hashes in the thread pool but first
 * copies the whole input on the event loop: 120–180 ms for a 50 MB batch,
 * in fresh pages, measured by test/integration/batch-stall.test.ts.)
 */
export async function requestHashOf(body: Uint8Array): Promise<Buffer> {
  const hash = createHash("sha256");
  for (let at = 0; at < body.length; at += HASH_SLICE_BYTES) {
    if (at > 0) await nextTurn();
    hash.update(body.subarray(at, at + HASH_SLICE_BYTES));
  }
  return hash.digest();
}

/** What is replayed: the first answer's status and its body text, byte for byte. */
export interface StoredAnswer {
  status: number;
  body: string;
}

/** The text the route sends for a 200 (`c.json({ MessageID })`). */
export function acceptedAnswer(messageId: string): StoredAnswer {
  return { status: 200, body: JSON.stringify({ MessageID: messageId }) };
}

/** The text the route sends for an error envelope (lib/http/errors.ts). */
export function refusedAnswer(errors: ApiErrorItem[]): StoredAnswer {
  return { status: httpStatusOf(errors[0]!.Code as ErrorCode), body: JSON.stringify({ Errors: errors }) };
}

export interface StoredKey {
  requestHash: Buffer;
  answer: StoredAnswer;
}

/** What an attempt answers when another request claimed the key first (nothing was done). */
export const CLAIM_LOST = Symbol("idempotency key claimed by another request");

export type OnceOutcome<R> =
  | { kind: "first"; result: R }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "mismatch" }
  /** The key kept being claimed and released by others: the client may retry. */
  | { kind: "busy" };

/**
 * Resolves one request with a key: a stored answer is replayed (same body)
 * or refused (another body); otherwise the request is attempted, claiming
 * the key with its outcome. An attempt that lost the claim looks again: the
 * winner's answer is committed by then (its insert blocked ours until its
 * transaction ended), unless the winner released the key (it was refused by
 * a limit), in which case the request runs again, at most `rounds` times.
 */
export async function resolveOnce<R>(
  requestHash: Buffer,
  steps: { find(): Promise<StoredKey | undefined>; attempt(): Promise<R | typeof CLAIM_LOST> },
  rounds = 3,
): Promise<OnceOutcome<R>> {
  for (let round = 0; ; round++) {
    const stored = await steps.find();
    if (stored) return stored.requestHash.equals(requestHash) ? { kind: "replay", answer: stored.answer } : { kind: "mismatch" };
    if (round === rounds) return { kind: "busy" };
    const result = await steps.attempt();
    if (result !== CLAIM_LOST) return { kind: "first", result };
  }
}
