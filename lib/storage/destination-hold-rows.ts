import type { Queryable } from "./database";

/**
 * The statements of destination holds (migration 1009). What a hold means and
 * who may place one is lib/delivery/destinations/holds.ts's; every change is
 * announced on HOLDS_CHANNEL so that every process's hold reader reloads at once.
 */

/** The channel announcing a placed or released hold (its payload is empty: readers reload all). */
export const HOLDS_CHANNEL = "mailroom_destination_holds";

export type HoldSource = "operator" | "automatic";

/** A hold as stored (lib/delivery/destinations/holds.ts `Hold` says what each member means). */
export interface DestinationHoldRow {
  id: number;
  /** Its destination_key column. */
  key: string;
  accountId: string | null;
  until: Date | null;
  reason: string;
  source: HoldSource;
  placedBy: string;
  placedAt: Date;
}

interface RawHold {
  id: number;
  destination_key: string;
  account_id: string | null;
  until: Date | null;
  reason: string;
  source: HoldSource;
  placed_by: string;
  placed_at: Date;
}

const COLUMNS = "id, destination_key, account_id, until, reason, source, placed_by, placed_at";
// The unique index's expression: "every account" as the nil UUID.
const ACCOUNT_OR_NIL = "COALESCE(account_id, '00000000-0000-0000-0000-000000000000'::uuid)";

function rowOf(r: RawHold): DestinationHoldRow {
  return {
    id: r.id,
    key: r.destination_key,
    accountId: r.account_id,
    until: r.until,
    reason: r.reason,
    source: r.source,
    placedBy: r.placed_by,
    placedAt: r.placed_at,
  };
}

/**
 * Places the hold, replacing the one on the same key and account unless that
 * one is an operator's and this one automatic (an operator's decision stands).
 * Returns the hold now in force on that key and account.
 */
export async function upsertDestinationHold(
  q: Queryable,
  hold: { key: string; accountId: string | null; until: Date | null; reason: string; source: HoldSource; placedBy: string },
): Promise<DestinationHoldRow> {
  const values = [hold.key, hold.accountId, hold.until, hold.reason, hold.source, hold.placedBy];
  const { rows } = await q.query<RawHold>(
    `WITH up AS (
       INSERT INTO destination_holds AS h (destination_key, account_id, until, reason, source, placed_by)
            VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (destination_key, (${ACCOUNT_OR_NIL})) DO UPDATE
            SET until = EXCLUDED.until, reason = EXCLUDED.reason, source = EXCLUDED.source,
                placed_by = EXCLUDED.placed_by, placed_at = now()
          WHERE h.source = 'automatic' OR EXCLUDED.source = 'operator'
       RETURNING ${COLUMNS}
     ), announce AS (SELECT pg_notify('${HOLDS_CHANNEL}', '') FROM up)
     SELECT up.* FROM up, announce`,
    values,
  );
  if (rows[0]) return rowOf(rows[0]);
  // The operator's hold stood: that is the one in force.
  const kept = await q.query<RawHold>(
    `SELECT ${COLUMNS} FROM destination_holds WHERE destination_key = $1 AND ${ACCOUNT_OR_NIL} = COALESCE($2::uuid, '00000000-0000-0000-0000-000000000000'::uuid)`,
    [hold.key, hold.accountId],
  );
  return rowOf(kept.rows[0]!);
}

/**
 * Deletes the holds on the key: the one of that account when `accountId` is
 * given, else every hold on the key (every account's and each account's).
 * Returns the holds deleted.
 */
export async function deleteDestinationHolds(q: Queryable, destinationKey: string, accountId?: string): Promise<DestinationHoldRow[]> {
  const { rows } = await q.query<RawHold>(
    `WITH gone AS (
       DELETE FROM destination_holds
        WHERE destination_key = $1 AND ($2::uuid IS NULL OR account_id = $2::uuid)
       RETURNING ${COLUMNS}
     ), announce AS (SELECT pg_notify('${HOLDS_CHANNEL}', '') FROM (SELECT 1 FROM gone LIMIT 1) AS any_gone)
     SELECT gone.* FROM gone LEFT JOIN announce ON true`,
    [destinationKey, accountId ?? null],
  );
  return rows.map(rowOf);
}

/** Every hold in force (its `until` not past), by key then account. Expired rows stay until released or purged; they hold nothing. */
export async function selectHoldsInForce(q: Queryable): Promise<DestinationHoldRow[]> {
  const { rows } = await q.query<RawHold>(
    `SELECT ${COLUMNS} FROM destination_holds WHERE until IS NULL OR until > now() ORDER BY destination_key, account_id NULLS FIRST`,
  );
  return rows.map(rowOf);
}

/** Deletes the holds whose `until` has passed; returns how many. */
export async function deleteExpiredHolds(q: Queryable): Promise<number> {
  const { rowCount } = await q.query(`DELETE FROM destination_holds WHERE until IS NOT NULL AND until <= now()`);
  return rowCount ?? 0;
}
