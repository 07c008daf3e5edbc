import { SUPPRESSION_REASONS as REASONS } from "../../contract/suppressions";
import type { Queryable } from "../../storage/database";
import type { SuppressionReason, suppressions } from "../../storage/schema";
import {
  deleteSuppressionRow,
  insertSuppressionIfAbsent,
  selectSuppressionPage,
  selectSuppressionRows,
  selectSuppressionsByEmail,
} from "../../storage/suppression-rows";

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
  const rows = await selectSuppressionRows(q, accountId, [...new Set(emails.map(normalizeEmail))]);
  return new Map(rows.map((r) => [r.email, r]));
}

/** Adds (or keeps) a suppression; the first reason recorded stays. Returns true when newly added. */
export async function addSuppression(
  q: Queryable,
  input: { accountId: string; email: string; reason: SuppressionReason; detail?: string; messageId?: string },
): Promise<boolean> {
  return insertSuppressionIfAbsent(q, {
    accountId: input.accountId,
    email: normalizeEmail(input.email),
    reason: input.reason,
    detail: input.detail ?? "",
    messageId: input.messageId ?? null,
  });
}

export async function removeSuppression(q: Queryable, accountId: string, email: string): Promise<boolean> {
  return deleteSuppressionRow(q, accountId, normalizeEmail(email));
}

export async function listSuppressions(
  q: Queryable,
  accountId: string,
  options: { search?: string; limit?: number; offset?: number } = {},
): Promise<SuppressionRow[]> {
  return selectSuppressionsByEmail(q, accountId, { search: options.search, limit: options.limit ?? 100, offset: options.offset ?? 0 });
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
  return selectSuppressionPage(q, accountId, { ...query, email: query.email === undefined ? undefined : normalizeEmail(query.email) });
}
