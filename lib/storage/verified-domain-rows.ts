import type { Queryable } from "./database";

/**
 * The sending path's one read of sender_domains: whether a From domain is
 * verified for the account (lib/domain/sending/send-email.ts caches the answer).
 */
export async function hasVerifiedDomain(q: Queryable, accountId: string, names: string[]): Promise<boolean> {
  const { rows } = await q.query(`SELECT 1 FROM sender_domains WHERE account_id = $1 AND name = ANY($2::text[]) AND status = 'verified' LIMIT 1`, [
    accountId,
    names,
  ]);
  return rows.length > 0;
}
