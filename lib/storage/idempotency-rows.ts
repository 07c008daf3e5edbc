import type { Queryable } from "./database";
import type { Tx } from "./transaction";

/**
 * The SQL of idempotency_keys (migration 0710, docs/adr/0110): one row per
 * API key and Idempotency-Key with the answer given. lib/domain/sending/idempotency-keys.ts
 * decides what a claim is; this is only the SQL. The claim runs on the
 * acceptance hot path, so it is a named (prepared) statement.
 */

export interface IdempotencyKeyRow {
  request_hash: Buffer;
  response_status: number;
  response_body: string;
}

/** A claim as written: the key, its request's hash, who claims it and the answer stored with it. */
export interface IdempotencyClaimRow {
  apiKeyId: string;
  key: string;
  requestHash: Buffer;
  messageId: string;
  status: number;
  body: string;
}

/** The identity of a claim made by one request. */
export interface IdempotencyClaimRef {
  apiKeyId: string;
  key: string;
  messageId: string;
}

export async function selectIdempotencyKey(q: Queryable, apiKeyId: string, key: string): Promise<IdempotencyKeyRow | undefined> {
  const { rows } = await q.query<IdempotencyKeyRow>({
    name: "mailroom_find_idempotency_key",
    text: "SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE api_key_id = $1 AND key = $2",
    values: [apiKeyId, key],
  });
  return rows[0];
}

/** Inserts the claims in key order (ON CONFLICT DO NOTHING); returns the message ids of the claims inserted. */
export async function insertIdempotencyClaims(tx: Tx, claims: IdempotencyClaimRow[]): Promise<string[]> {
  const { rows } = await tx.query<{ message_id: string }>({
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
          response_status: c.status,
          response_body: c.body,
        })),
      ),
    ],
  });
  return rows.map((r) => r.message_id);
}

export async function deleteIdempotencyClaims(tx: Tx, claims: IdempotencyClaimRef[]): Promise<void> {
  await tx.query(
    `DELETE FROM idempotency_keys k USING unnest($1::uuid[], $2::text[], $3::uuid[]) AS x(api_key_id, key, message_id)
      WHERE k.api_key_id = x.api_key_id AND k.key = x.key AND k.message_id = x.message_id`,
    [claims.map((c) => c.apiKeyId), claims.map((c) => c.key), claims.map((c) => c.messageId)],
  );
}

/** Replaces the answer of the claims, and forgets their message id. */
export async function updateIdempotencyAnswers(tx: Tx, claims: IdempotencyClaimRef[], status: number, body: string): Promise<void> {
  await tx.query(
    `UPDATE idempotency_keys k SET response_status = $4, response_body = $5, message_id = NULL
       FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS x(api_key_id, key, message_id)
      WHERE k.api_key_id = x.api_key_id AND k.key = x.key AND k.message_id = x.message_id`,
    [claims.map((c) => c.apiKeyId), claims.map((c) => c.key), claims.map((c) => c.messageId), status, body],
  );
}

/** Replaces the answer of one claim, and forgets its message id. */
export async function updateIdempotencyAnswer(tx: Tx, claim: IdempotencyClaimRef, status: number, body: string): Promise<void> {
  await tx.query(
    `UPDATE idempotency_keys SET response_status = $4, response_body = $5, message_id = NULL
      WHERE api_key_id = $1 AND key = $2 AND message_id = $3`,
    [claim.apiKeyId, claim.key, claim.messageId, status, body],
  );
}

/** Inserts an answer without a message; false when the key is already held. */
export async function insertIdempotentAnswer(q: Queryable, row: Omit<IdempotencyClaimRow, "messageId">): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO idempotency_keys (api_key_id, key, request_hash, response_status, response_body)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (api_key_id, key) DO NOTHING`,
    [row.apiKeyId, row.key, row.requestHash, row.status, row.body],
  );
  return rowCount === 1;
}

/** Keys deleted per statement by the purge, so that no statement holds locks for long. */
export const IDEMPOTENCY_PURGE_BATCH = 5000;

/** Deletes up to IDEMPOTENCY_PURGE_BATCH keys created before `before`; returns how many. */
export async function deleteIdempotencyKeysBefore(q: Queryable, before: Date): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE created_at < $1 LIMIT ${IDEMPOTENCY_PURGE_BATCH})`,
    [before],
  );
  return rowCount ?? 0;
}
