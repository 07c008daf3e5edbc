import type { Queryable } from "../../storage/database";
import {
  deleteIdempotencyClaims,
  deleteIdempotencyKeysBefore,
  IDEMPOTENCY_PURGE_BATCH,
  insertIdempotencyClaims,
  insertIdempotentAnswer,
  selectIdempotencyKey,
  updateIdempotencyAnswer,
  updateIdempotencyAnswers,
} from "../../storage/idempotency-rows";
import type { Tx } from "../../storage/transaction";
import { IDEMPOTENCY_KEY_TTL_SECONDS, type StoredAnswer, type StoredKey } from "./idempotency-key";

/**
 * Storage of POST /email's Idempotency-Key answers (migration 0710,
 * docs/adr/0110). A key is claimed by inserting its row with the answer
 * inside the transaction that accepts the message: both commit or neither
 * does. A concurrent insert of the same key waits for that transaction and
 * then finds the row (ON CONFLICT DO NOTHING).
 */

export interface KeyClaim {
  apiKeyId: string;
  key: string;
  requestHash: Buffer;
  /** Identifies the claiming request within a batch. */
  messageId: string;
  answer: StoredAnswer;
}

export async function findIdempotencyKey(q: Queryable, apiKeyId: string, key: string): Promise<StoredKey | undefined> {
  const row = await selectIdempotencyKey(q, apiKeyId, key);
  return row && { requestHash: row.request_hash, answer: { status: row.response_status, body: row.response_body } };
}

/**
 * Inserts the claims of a batch, in key order (two batches that share keys
 * lock them in the same order), before anything else of the acceptance locks
 * a row. Returns the message ids whose claim won; a key already held (by a
 * committed row, a concurrent transaction that then committed, or an earlier
 * item of this batch) is not claimed.
 */
export async function claimIdempotencyKeys(tx: Tx, claims: KeyClaim[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const won = await insertIdempotencyClaims(
    tx,
    claims.map((c) => ({ apiKeyId: c.apiKeyId, key: c.key, requestHash: c.requestHash, messageId: c.messageId, status: c.answer.status, body: c.answer.body })),
  );
  return new Set(won);
}

/** Drops claims whose request was refused with "not now" (a limit): the key is free for the retry. */
export async function releaseIdempotencyKeys(tx: Tx, claims: KeyClaim[]): Promise<void> {
  if (claims.length === 0) return;
  await deleteIdempotencyClaims(tx, claims);
}

/** Replaces the answer of claims whose request was refused for good (every recipient suppressed): no message id was given out. */
export async function reanswerIdempotencyKeys(tx: Tx, claims: KeyClaim[], answer: StoredAnswer): Promise<void> {
  if (claims.length === 0) return;
  await updateIdempotencyAnswers(tx, claims, answer.status, answer.body);
}

/** Writes the answer of a claim made with a placeholder (a batch's, known once its items' outcomes are): no single message id. */
export async function answerIdempotencyKey(tx: Tx, claim: Omit<KeyClaim, "answer">, answer: StoredAnswer): Promise<void> {
  await updateIdempotencyAnswer(tx, claim, answer.status, answer.body);
}

/** Stores an answer given outside an acceptance (From domain not verified); false when the key is already held. */
export async function storeIdempotentAnswer(q: Queryable, claim: Omit<KeyClaim, "messageId">): Promise<boolean> {
  return insertIdempotentAnswer(q, { apiKeyId: claim.apiKeyId, key: claim.key, requestHash: claim.requestHash, status: claim.answer.status, body: claim.answer.body });
}

/** Maintenance: keys older than 24 hours, in batches so that no statement holds locks for long. */
export async function purgeIdempotencyKeys(q: Queryable, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_SECONDS * 1000);
  let total = 0;
  for (;;) {
    const deleted = await deleteIdempotencyKeysBefore(q, before);
    total += deleted;
    if (!deleted || deleted < IDEMPOTENCY_PURGE_BATCH) return total;
  }
}
