import type { Queryable } from "./database";

/**
 * The SQL of inbound_byte_counters (migration 1006): bytes of raw MIME
 * received per client address or account per UTC hour. What a budget is and
 * when it refuses is lib/domain/inbound/byte-budgets.ts.
 */

export interface ByteCounterKey {
  scope: "address" | "account";
  key: string;
}

/**
 * Locks the counters of `hourStart` (made at 0 where missing), in the order
 * given, until the caller's transaction ends, and returns their bytes: what
 * every committed store of that hour added, since a concurrent store of the
 * same counter (in any process) waits here for it.
 */
export async function lockByteCounters(q: Queryable, hourStart: number, keys: readonly ByteCounterKey[]): Promise<{ scope: string; key: string; bytes: number }[]> {
  if (keys.length === 0) return [];
  const { rows } = await q.query<{ scope: string; key: string; bytes: string }>({
    name: "mailroom_inbound_byte_counters_lock",
    text: `INSERT INTO inbound_byte_counters (scope, key, hour_start, bytes)
           SELECT k.scope, k.key, $3, 0 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(scope, key, ord) ORDER BY k.ord
           ON CONFLICT (scope, key, hour_start) DO UPDATE SET bytes = inbound_byte_counters.bytes
           RETURNING scope, key, bytes`,
    values: [keys.map((k) => k.scope), keys.map((k) => k.key), hourStart],
  });
  return rows.map((r) => ({ scope: r.scope, key: r.key, bytes: Number(r.bytes) }));
}

/** Adds bytes to counters of `hourStart` that lockByteCounters locked. */
export async function addToByteCounters(q: Queryable, hourStart: number, added: readonly { key: ByteCounterKey; bytes: number }[]): Promise<void> {
  if (added.length === 0) return;
  await q.query({
    name: "mailroom_inbound_byte_counters_add",
    text: `UPDATE inbound_byte_counters c SET bytes = c.bytes + a.bytes
             FROM unnest($1::text[], $2::text[], $3::bigint[]) AS a(scope, key, bytes)
            WHERE c.scope = a.scope AND c.key = a.key AND c.hour_start = $4`,
    values: [added.map((a) => a.key.scope), added.map((a) => a.key.key), added.map((a) => a.bytes), hourStart],
  });
}

/** Deletes the counters of hours that started before `hourStart`; how many. */
export async function deleteByteCountersBefore(q: Queryable, hourStart: number): Promise<number> {
  const { rowCount } = await q.query("DELETE FROM inbound_byte_counters WHERE hour_start < $1", [hourStart]);
  return rowCount ?? 0;
}
