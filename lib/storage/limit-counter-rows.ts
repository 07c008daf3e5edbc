import type { Queryable } from "./database";

/**
 * The SQL of limit_counters (docs/contract.md §6): one row per API key,
 * window kind and window start. lib/domain/sending/limit-counters.ts decides what a
 * window is and what a refusal means; this is only the SQL.
 */

export interface CounterWindow {
  kind: string;
  /** Unix seconds. */
  start: number;
  limit: number;
}

export interface CounterRow<K extends string = string> {
  window_kind: K;
  used: number;
}

/**
 * Adds `count` to every window, only where the result stays within its
 * limit: a refusing window returns no row. The updated rows stay locked
 * until the caller's transaction ends. `limitOf` gives the limit of each
 * kind that may conflict (its column of the CASE), the largest int when unlimited.
 */
export async function upsertLimitCounters<K extends string>(
  q: Queryable,
  keyId: string,
  windows: CounterWindow[],
  count: number,
  limitOf: { minute: number; hour: number; day: number },
): Promise<CounterRow<K>[]> {
  const { rows } = await q.query<CounterRow<K>>(
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
      limitOf.minute,
      limitOf.hour,
      limitOf.day,
    ],
  );
  return rows;
}

/** The counters of the given windows that exist (a window without a row has used nothing). */
export async function selectLimitCounters<K extends string>(q: Queryable, keyId: string, windows: Omit<CounterWindow, "limit">[]): Promise<CounterRow<K>[]> {
  const { rows } = await q.query<CounterRow<K>>(
    `SELECT window_kind, used FROM limit_counters
     WHERE api_key_id = $1 AND (window_kind, window_start) IN (SELECT * FROM unnest($2::text[], $3::bigint[]))`,
    [keyId, windows.map((w) => w.kind), windows.map((w) => w.start)],
  );
  return rows;
}

/**
 * Adds `count` to the account's counter of the day starting at `dayStart`
 * (account_limit_counters, migration 1007) only where the result stays
 * within `limit`; the new total, or undefined when it would not. The row
 * stays locked until the caller's transaction ends.
 */
export async function upsertAccountDayCounter(q: Queryable, accountId: string, dayStart: number, count: number, limit: number): Promise<number | undefined> {
  const { rows } = await q.query<{ used: number }>(
    `INSERT INTO account_limit_counters (account_id, window_start, used)
     SELECT $1, $2, $3 WHERE $3 <= $4::int
     ON CONFLICT (account_id, window_start)
     DO UPDATE SET used = account_limit_counters.used + EXCLUDED.used WHERE account_limit_counters.used + EXCLUDED.used <= $4::int
     RETURNING used`,
    [accountId, dayStart, count, limit],
  );
  return rows[0]?.used;
}
