import type { Queryable } from "./database";

/** The MTA-STS policies delivery fetched, kept for their max_age (migration 1021, docs/adr/0326). */

export interface StoredStsPolicy {
  recordId: string;
  /** The policy file as fetched (at most 64 KB: lib/delivery/tls-policy/mta-sts-fetch.ts). */
  policy: string;
  expiresAt: Date;
}

/** The domain's policy if it has not expired. */
export async function selectStsPolicy(q: Queryable, domain: string): Promise<StoredStsPolicy | undefined> {
  const { rows } = await q.query<{ record_id: string; policy: string; expires_at: Date }>(
    "SELECT record_id, policy, expires_at FROM mta_sts_policies WHERE domain = $1 AND expires_at > now()",
    [domain],
  );
  const r = rows[0];
  return r ? { recordId: r.record_id, policy: r.policy, expiresAt: r.expires_at } : undefined;
}

/** Replaces the domain's policy, and deletes policies expired more than a day ago. */
export async function upsertStsPolicy(q: Queryable, domain: string, p: StoredStsPolicy): Promise<void> {
  await q.query(
    `WITH purge AS (DELETE FROM mta_sts_policies WHERE expires_at < now() - interval '1 day' AND domain <> $1)
     INSERT INTO mta_sts_policies (domain, record_id, policy, expires_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (domain) DO UPDATE SET record_id = EXCLUDED.record_id, policy = EXCLUDED.policy, fetched_at = now(), expires_at = EXCLUDED.expires_at`,
    [domain, p.recordId, p.policy, p.expiresAt],
  );
}
