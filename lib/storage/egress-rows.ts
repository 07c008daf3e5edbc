import type { Queryable } from "./database";

/**
 * The statements of egress addresses, pools, assignments and warm-up counts
 * (migration 1018). What they mean is lib/delivery/egress's (docs/adr/0327).
 */

export interface EgressAddressRow {
  address: string;
  ehloName: string;
  pool: string;
  warmupFrom: Date;
  createdAt: Date;
}

export interface EgressPoolRow {
  name: string;
  createdAt: Date;
  addresses: number;
  accounts: number;
}

/** Copies tried from an address to a provider in one UTC hour. */
export interface EgressUsageRow {
  address: string;
  provider: string;
  hour: Date;
  copies: number;
}

/** At most this many usage rows are read at once (addresses × providers × hours of a day). */
export const MAX_USAGE_ROWS = 200_000;

export async function listEgressAddressRows(q: Queryable): Promise<EgressAddressRow[]> {
  const { rows } = await q.query<{ address: string; ehlo_name: string; pool: string; warmup_from: Date; created_at: Date }>(
    "SELECT address, ehlo_name, pool, warmup_from, created_at FROM egress_addresses ORDER BY pool, address",
  );
  return rows.map((r) => ({ address: r.address, ehloName: r.ehlo_name, pool: r.pool, warmupFrom: r.warmup_from, createdAt: r.created_at }));
}

export async function listEgressPoolRows(q: Queryable): Promise<EgressPoolRow[]> {
  const { rows } = await q.query<{ name: string; created_at: Date; addresses: string; accounts: string }>(
    `SELECT p.name, p.created_at,
            (SELECT count(*) FROM egress_addresses a WHERE a.pool = p.name) AS addresses,
            (SELECT count(*) FROM egress_assignments s WHERE s.pool = p.name) AS accounts
       FROM egress_pools p ORDER BY p.name`,
  );
  return rows.map((r) => ({ name: r.name, createdAt: r.created_at, addresses: Number(r.addresses), accounts: Number(r.accounts) }));
}

/** Every account's pool that is not `default`, by account id. */
export async function listEgressAssignmentRows(q: Queryable): Promise<Map<string, string>> {
  const { rows } = await q.query<{ account_id: string; pool: string }>("SELECT account_id, pool FROM egress_assignments");
  return new Map(rows.map((r) => [r.account_id, r.pool]));
}

/** Declares (or redeclares: EHLO name and pool replaced, warm-up kept) an address; its pool is created when new. */
export async function upsertEgressAddressRow(q: Queryable, a: { address: string; ehloName: string; pool: string; warmupFrom?: Date }): Promise<EgressAddressRow> {
  await q.query("INSERT INTO egress_pools (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", [a.pool]);
  const { rows } = await q.query<{ address: string; ehlo_name: string; pool: string; warmup_from: Date; created_at: Date }>(
    `INSERT INTO egress_addresses (address, ehlo_name, pool, warmup_from) VALUES ($1, $2, $3, COALESCE($4, now()))
     ON CONFLICT (address) DO UPDATE
        SET ehlo_name = EXCLUDED.ehlo_name, pool = EXCLUDED.pool,
            warmup_from = CASE WHEN $4::timestamptz IS NULL THEN egress_addresses.warmup_from ELSE EXCLUDED.warmup_from END
     RETURNING address, ehlo_name, pool, warmup_from, created_at`,
    [a.address, a.ehloName, a.pool, a.warmupFrom ?? null],
  );
  const r = rows[0]!;
  return { address: r.address, ehloName: r.ehlo_name, pool: r.pool, warmupFrom: r.warmup_from, createdAt: r.created_at };
}

/** Removes an address; whether it was there. */
export async function deleteEgressAddressRow(q: Queryable, address: string): Promise<boolean> {
  const { rowCount } = await q.query("DELETE FROM egress_addresses WHERE address = $1", [address]);
  return (rowCount ?? 0) > 0;
}

/** Whether the pool exists. */
export async function egressPoolExists(q: Queryable, name: string): Promise<boolean> {
  const { rows } = await q.query("SELECT 1 FROM egress_pools WHERE name = $1", [name]);
  return rows.length > 0;
}

/** Assigns the account to the pool (`default`: the assignment is removed). */
export async function setEgressAssignmentRow(q: Queryable, accountId: string, pool: string): Promise<void> {
  if (pool === "default") {
    await q.query("DELETE FROM egress_assignments WHERE account_id = $1", [accountId]);
    return;
  }
  await q.query(
    `INSERT INTO egress_assignments (account_id, pool) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET pool = EXCLUDED.pool, assigned_at = now()`,
    [accountId, pool],
  );
}

/** Adds the counts (one statement for the whole batch); rows older than `pruneBefore`, if given, are deleted. */
export async function addEgressUsageRows(q: Queryable, counts: EgressUsageRow[], pruneBefore?: Date): Promise<void> {
  if (counts.length > 0) {
    await q.query(
      `INSERT INTO egress_usage (address, provider, hour, copies)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[])
       ON CONFLICT (address, provider, hour) DO UPDATE SET copies = egress_usage.copies + EXCLUDED.copies`,
      [counts.map((c) => c.address), counts.map((c) => c.provider), counts.map((c) => c.hour), counts.map((c) => c.copies)],
    );
  }
  if (pruneBefore) await q.query("DELETE FROM egress_usage WHERE hour < $1", [pruneBefore]);
}

/** The counts of hours since `since` (a UTC day's start), at most MAX_USAGE_ROWS (the largest first). */
export async function listEgressUsageRows(q: Queryable, since: Date): Promise<EgressUsageRow[]> {
  const { rows } = await q.query<{ address: string; provider: string; hour: Date; copies: number }>(
    "SELECT address, provider, hour, copies FROM egress_usage WHERE hour >= $1 ORDER BY copies DESC LIMIT $2",
    [since, MAX_USAGE_ROWS],
  );
  return rows;
}
