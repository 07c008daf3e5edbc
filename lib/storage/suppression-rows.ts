import { and, asc, count, desc, eq, ilike, inArray } from "drizzle-orm";
import type { Queryable } from "./database";
import { suppressions, type SuppressionReason } from "./schema";

/** The reads and writes of suppressions (lib/domain/accounts/suppressions.ts normalises the addresses and decides what a suppression means). */

export type SuppressionRow = typeof suppressions.$inferSelect;

/** The account's suppressions of these (normalised) emails. */
export async function selectSuppressionRows(q: Queryable, accountId: string, emails: string[]): Promise<SuppressionRow[]> {
  return q.db
    .select()
    .from(suppressions)
    .where(and(eq(suppressions.accountId, accountId), inArray(suppressions.email, emails)));
}

/** Inserts the suppression unless the account has that email already; true when this inserted it. */
export async function insertSuppressionIfAbsent(
  q: Queryable,
  values: { accountId: string; email: string; reason: SuppressionReason; detail: string; messageId: string | null },
): Promise<boolean> {
  const rows = await q.db.insert(suppressions).values(values).onConflictDoNothing().returning({ email: suppressions.email });
  return rows.length > 0;
}

/** True when the account had that (normalised) email suppressed. */
export async function deleteSuppressionRow(q: Queryable, accountId: string, email: string): Promise<boolean> {
  const rows = await q.db
    .delete(suppressions)
    .where(and(eq(suppressions.accountId, accountId), eq(suppressions.email, email)))
    .returning({ email: suppressions.email });
  return rows.length > 0;
}

/** The account's suppressions by address; `search`, a substring of the address (case-insensitive, taken literally). */
export async function selectSuppressionsByEmail(
  q: Queryable,
  accountId: string,
  options: { search?: string; limit: number; offset: number },
): Promise<SuppressionRow[]> {
  const conds = [eq(suppressions.accountId, accountId)];
  if (options.search) conds.push(ilike(suppressions.email, `%${options.search.replace(/[%_\\]/g, "\\$&")}%`));
  return q.db
    .select()
    .from(suppressions)
    .where(and(...conds))
    .orderBy(asc(suppressions.email))
    .limit(options.limit)
    .offset(options.offset);
}

/** One page of the account's suppressions, newest first then by address, and the count of every matching row. */
export async function selectSuppressionPage(
  q: Queryable,
  accountId: string,
  query: { reason?: SuppressionReason; email?: string; startFrom: number; retrieveCount: number },
): Promise<{ total: number; rows: SuppressionRow[] }> {
  const conds = [eq(suppressions.accountId, accountId)];
  if (query.reason) conds.push(eq(suppressions.reason, query.reason));
  if (query.email !== undefined) conds.push(eq(suppressions.email, query.email));
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    q.db
      .select()
      .from(suppressions)
      .where(where)
      .orderBy(desc(suppressions.createdAt), asc(suppressions.email))
      .limit(query.retrieveCount)
      .offset(query.startFrom),
    q.db.select({ n: count() }).from(suppressions).where(where),
  ]);
  return { total: total?.n ?? 0, rows };
}
