import type { Database } from "../storage/database";
import type { Tx } from "../storage/transaction";
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

export async function findIdempotencyKey(database: Database, apiKeyId: string, key: string): Promise<StoredKey | undefined> {
  const { rows } = await database.pool.query<{ request_hash: Buffer; response_status: number; response_body: string }>({
    name: "mailroom_find_idempotency_key",
    text: "SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE api_key_id = $1 AND key = $2",
    values: [apiKeyId, key],
  });
  const row = rows[0];
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
  const { rows } = await tx.client.query<{ message_id: string }>({
    name: "mailroom_claim_idempotency_keys",
    text: `INSERT INTO idempotency_keys (api_key_id, key, request_hash, message_id, response_status, response_body)
           SELECT api_key_id, key, decode(request_hash, 'hex'), message_id, response_status, response_body
           FROM jsonb_to_recordset($1::jsonb) AS x(i int, api_key_id uuid, key text, request_hash text, message_id uuid, response_status int, response_body text)
           ORDER BY api_key_id, key, i
           ON CONFLICT (api_key_id, key) DO NOTHING
           RETURNING message_id`,
    values: [
      JSON.stringify(
        claims.map((c, i) => ({
          i,
          api_key_id: c.apiKeyId,
          key: c.key,
          request_hash: c.requestHash.toString("hex"),
          message_id: c.messageId,
          response_status: c.answer.status,
          response_body: c.answer.body,
        })),
      ),
    ],
  });
  return new Set(rows.map((r) => r.message_id));
}

/** Drops claims whose request was refused with "not now" (a limit): the key is free for the retry. */
export async function releaseIdempotencyKeys(tx: Tx, claims: KeyClaim[]): Promise<void> {
  if (claims.length === 0) return;
  await tx.client.query(
    `DELETE FROM idempotency_keys k USING unnest($1::uuid[], $2::text[], $3::uuid[]) AS x(api_key_id, key, message_id)
      WHERE k.api_key_id = x.api_key_id AND k.key = x.key AND k.message_id = x.message_id`,
    [claims.map((c) => c.apiKeyId), claims.map((c) => c.key), claims.map((c) => c.messageId)],
  );
}

/** Replaces the answer of claims whose request was refused for good (every recipient suppressed): no message id was given out. */
export async function reanswerIdempotencyKeys(tx: Tx, claims: KeyClaim[], answer: StoredAnswer): Promise<void> {
  if (claims.length === 0) return;
  await tx.client.query(
    `UPDATE idempotency_keys k SET response_status = $4, response_body = $5, message_id = NULL
       FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS x(api_key_id, key, message_id)
      WHERE k.api_key_id = x.api_key_id AND k.key = x.key AND k.message_id = x.message_id`,
    [claims.map((c) => c.apiKeyId), claims.map((c) => c.key), claims.map((c) => c.messageId), answer.status, answer.body],
  );
}

/** Writes the answer of a claim made with a placeholder (a batch's, known once its items' outcomes are): no single message id. */
export async function answerIdempotencyKey(tx: Tx, claim: Omit<KeyClaim, "answer">, answer: StoredAnswer): Promise<void> {
  await tx.client.query(
    `UPDATE idempotency_keys SET response_status = $4, response_body = $5, message_id = NULL
      WHERE api_key_id = $1 AND key = $2 AND message_id = $3`,
    [claim.apiKeyId, claim.key, claim.messageId, answer.status, answer.body],
  );
}

/** Stores an answer given outside an acceptance (From domain not verified); false when the key is already held. */
export async function storeIdempotentAnswer(database: Database, claim: Omit<KeyClaim, "messageId">): Promise<boolean> {
  const { rowCount } = await database.pool.query(
    `INSERT INTO idempotency_keys (api_key_id, key, request_hash, response_status, response_body)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (api_key_id, key) DO NOTHING`,
    [claim.apiKeyId, claim.key, claim.requestHash, claim.answer.status, claim.answer.body],
  );
  return rowCount === 1;
}

/** Maintenance: keys older than 24 hours, in batches so that no statement holds locks for long. */
export async function purgeIdempotencyKeys(database: Database, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_SECONDS * 1000);
  let total = 0;
  for (;;) {
    const { rowCount } = await database.pool.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE created_at < $1 LIMIT 5000)`,
      [before],
    );
    total += rowCount ?? 0;
    if (!rowCount || rowCount < 5000) return total;
  }
}
