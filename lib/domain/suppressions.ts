import { and, asc, count, desc, eq, ilike, inArray } from "drizzle-orm";
import { SUPPRESSION_REASONS as REASONS } from "../contract/suppressions";
import type { Queryable } from "../storage/database";
import { suppressions, type SuppressionReason } from "../storage/schema";

/**
 * The account's suppression list: addresses that must not receive mail
 * (hard bounces, complaints, unsubscribes, manual entries). Emails are kept
 * lowercased; lookups lowercase their input.
 */

export type SuppressionRow = typeof suppressions.$inferSelect;

export const SUPPRESSION_REASONS: SuppressionReason[] = [...REASONS];

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Which of `emails` are suppressed for the account (keys are normalised emails). */
export async function findSuppressedEmails(q: Queryable, accountId: string, emails: string[]): Promise<Map<string, SuppressionRow>> {
  if (emails.length === 0) return new Map();
  const rows = await q.db
    .select()
    .from(suppressions)
    .where(and(eq(suppressions.accountId, accountId), inArray(suppressions.email, [...new Set(emails.map(normalizeEmail))])));
  return new Map(rows.map((r) => [r.email, r]));
}

/** Adds (or keeps) a suppression; the first reason recorded stays. Returns true when newly added. */
export async function addSuppression(
  q: Queryable,
  input: { accountId: string; email: string; reason: SuppressionReason; detail?: string; messageId?: string },
): Promise<boolean> {
  const rows = await q.db
    .insert(suppressions)
    .values({
      accountId: input.accountId,
      email: normalizeEmail(input.email),
      reason: input.reason,
      detail: input.detail ?? "",
      messageId: input.messageId ?? null,
    })
    .onConflictDoNothing()
    .returning({ email: suppressions.email });
  return rows.length > 0;
}

export async function removeSuppression(q: Queryable, accountId: string, email: string): Promise<boolean> {
  const rows = await q.db
    .delete(suppressions)
    .where(and(eq(suppressions.accountId, accountId), eq(suppressions.email, normalizeEmail(email))))
    .returning({ email: suppressions.email });
  return rows.length > 0;
}

export async function listSuppressions(
  q: Queryable,
  accountId: string,
  options: { search?: string; limit?: number; offset?: number } = {},
): Promise<SuppressionRow[]> {
  const conds = [eq(suppressions.accountId, accountId)];
  if (options.search) conds.push(ilike(suppressions.email, `%${options.search.replace(/[%_\\]/g, "\\$&")}%`));
  return q.db
    .select()
    .from(suppressions)
    .where(and(...conds))
    .orderBy(asc(suppressions.email))
    .limit(options.limit ?? 100)
    .offset(options.offset ?? 0);
}

/**
 * One page of the list for GET /api/v1/suppressions (docs/contract.md §17.1):
 * newest first (then by address, so pages are stable), with the count of every
 * matching row. `email` matches one address exactly (normalised).
 */
export async function pageSuppressions(
  q: Queryable,
  accountId: string,
  query: { reason?: SuppressionReason; email?: string; startFrom: number; retrieveCount: number },
): Promise<{ total: number; rows: SuppressionRow[] }> {
  const conds = [eq(suppressions.accountId, accountId)];
  if (query.reason) conds.push(eq(suppressions.reason, query.reason));
  if (query.email !== undefined) conds.push(eq(suppressions.email, normalizeEmail(query.email)));
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
