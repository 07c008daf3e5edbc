import type { Queryable } from "./database";
import type { Tx } from "./transaction";

/**
 * The SQL of sign_in_failures, the staff password sign-in throttle's rows
 * (lib/domain/staff/sign-in-throttle.ts decides the limits, docs/adr/0504).
 */

/** Serialises the attempts on one key (`email:…` or `address:…`) of the throttle's lock class until the transaction ends. */
export async function lockSignInKey(tx: Tx, lockClass: number, key: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [lockClass, key]);
}

const COUNT = (column: "email" | "address") => `
  SELECT count(*)::int AS n, coalesce(ceil(extract(epoch FROM min(failed_at) + make_interval(secs => $3) - now())), 0)::int AS wait
    FROM (SELECT failed_at FROM sign_in_failures
           WHERE ${column} = $1 AND failed_at > now() - make_interval(secs => $3)
           ORDER BY failed_at DESC LIMIT $2) recent`;

/**
 * The failures of `key` (an email or an address) in the last `windowSeconds`,
 * counting at most `limit` of them, and how many seconds until the oldest
 * counted one leaves the window.
 */
export async function recentSignInFailures(
  q: Queryable,
  column: "email" | "address",
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<{ n: number; wait: number }> {
  return (await q.query<{ n: number; wait: number }>(COUNT(column), [key, limit, windowSeconds])).rows[0]!;
}

/** Records an attempt as a failure; its id. */
export async function insertSignInFailure(q: Queryable, email: string, address: string): Promise<number> {
  const { rows } = await q.query<{ id: string }>("INSERT INTO sign_in_failures (email, address) VALUES ($1, $2) RETURNING id", [email, address]);
  return Number(rows[0]!.id);
}

export async function deleteSignInFailures(q: Queryable, email: string, address: string): Promise<void> {
  await q.query("DELETE FROM sign_in_failures WHERE email = $1 AND address = $2", [email, address]);
}

/** Deletes the failures before `before`; how many. */
export async function deleteSignInFailuresBefore(q: Queryable, before: Date): Promise<number> {
  const { rowCount } = await q.query("DELETE FROM sign_in_failures WHERE failed_at < $1", [before]);
  return rowCount ?? 0;
}
