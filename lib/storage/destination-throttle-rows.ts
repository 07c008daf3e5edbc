import type { Queryable } from "./database";

/** The back-off's throttles as the worker processes set them (migration 1022, docs/adr/0324). */

export interface ThrottleRow {
  key: string;
  /** The recipient domain whose reply complained. */
  domain: string;
  perMinute: number;
  connections: number;
  reason: string;
  endsAt: Date;
}

/** Replaces the throttle of the key and domain, and deletes throttles that ended more than a day ago. */
export async function upsertThrottle(q: Queryable, t: ThrottleRow): Promise<void> {
  await q.query(
    `WITH purge AS (DELETE FROM destination_throttles WHERE ends_at < now() - interval '1 day')
     INSERT INTO destination_throttles (key, domain, per_minute, connections, reason, ends_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (key, domain) DO UPDATE SET per_minute = EXCLUDED.per_minute, connections = EXCLUDED.connections,
       reason = EXCLUDED.reason, ends_at = EXCLUDED.ends_at, updated_at = now()`,
    [t.key, t.domain, t.perMinute, t.connections, t.reason, t.endsAt],
  );
}

/** The throttles that have not ended, by key then domain (at most `limit`). */
export async function selectThrottlesInForce(q: Queryable, limit: number): Promise<ThrottleRow[]> {
  const { rows } = await q.query<{ key: string; domain: string; per_minute: number; connections: number; reason: string; ends_at: Date }>(
    "SELECT key, domain, per_minute, connections, reason, ends_at FROM destination_throttles WHERE ends_at > now() ORDER BY key, domain LIMIT $1",
    [limit],
  );
  return rows.map((r) => ({ key: r.key, domain: r.domain, perMinute: r.per_minute, connections: r.connections, reason: r.reason, endsAt: r.ends_at }));
}
