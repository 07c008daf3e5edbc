import type pg from "pg";
import { activeWindows, type WindowKind, type WindowUsage } from "./limits";
import type { Limits } from "./plans";

/**
 * The per-key counters of docs/contract.md §6, in limit_counters. Consuming
 * runs inside the acceptance transaction: one upsert that increments every
 * window only where the result stays within its limit. A window that refuses
 * returns no row; the caller then rolls the whole transaction back, so a
 * refused request consumes nothing. The updated rows stay locked until
 * commit, so concurrent requests of one key (in any process) serialise on
 * them and no window ever admits more than its limit.
 */

type Queryable = Pick<pg.PoolClient, "query">;

export type ConsumeResult = { ok: true; usages: WindowUsage[] } | { ok: false; refused: WindowKind[] };

export async function consumeLimits(client: Queryable, keyId: string, limits: Limits, count: number, now: number): Promise<ConsumeResult> {
  const windows = activeWindows(limits, now);
  if (windows.length === 0) return { ok: true, usages: [] };
  const limitOf = (k: WindowKind) => windows.find((w) => w.kind === k)?.limit ?? 2_147_483_647;
  const { rows } = await client.query<{ window_kind: WindowKind; used: number }>(
    `INSERT INTO limit_counters (api_key_id, window_kind, window_start, used)
     SELECT $1, w.kind, w.start, $4 FROM unnest($2::text[], $3::bigint[], $5::int[]) AS w(kind, start, lim) WHERE $4 <= w.lim
     ON CONFLICT (api_key_id, window_kind, window_start)
     DO UPDATE SET used = limit_counters.used + EXCLUDED.used
     WHERE limit_counters.used + EXCLUDED.used <=
       CASE EXCLUDED.window_kind WHEN 'minute' THEN $6::int WHEN 'hour' THEN $7::int ELSE $8::int END
     RETURNING window_kind, used`,
    [
      keyId,
      windows.map((w) => w.kind),
      windows.map((w) => w.start),
      count,
      windows.map((w) => w.limit),
      limitOf("minute"),
      limitOf("hour"),
      limitOf("day"),
    ],
  );
  const used = new Map(rows.map((r) => [r.window_kind, r.used]));
  const refused = windows.filter((w) => !used.has(w.kind)).map((w) => w.kind);
  if (refused.length > 0) return { ok: false, refused };
  return { ok: true, usages: windows.map((w) => ({ kind: w.kind, limit: w.limit, used: used.get(w.kind)! })) };
}

/** Current usage of every limited window (for the X-RateLimit headers of responses that consumed nothing). */
export async function readUsage(client: Queryable, keyId: string, limits: Limits, now: number): Promise<WindowUsage[]> {
  const windows = activeWindows(limits, now);
  if (windows.length === 0) return [];
  const { rows } = await client.query<{ window_kind: WindowKind; used: number }>(
    `SELECT window_kind, used FROM limit_counters
     WHERE api_key_id = $1 AND (window_kind, window_start) IN (SELECT * FROM unnest($2::text[], $3::bigint[]))`,
    [keyId, windows.map((w) => w.kind), windows.map((w) => w.start)],
  );
  const used = new Map(rows.map((r) => [r.window_kind, r.used]));
  return windows.map((w) => ({ kind: w.kind, limit: w.limit, used: used.get(w.kind) ?? 0 }));
}
