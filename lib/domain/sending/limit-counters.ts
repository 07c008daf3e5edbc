import type { Queryable } from "../../storage/database";
import { selectLimitCounters, upsertAccountDayCounter, upsertLimitCounters } from "../../storage/limit-counter-rows";
import { activeWindows, windowStart, type WindowKind, type WindowUsage } from "./limits";
import type { Limits } from "../accounts/plans";

/**
 * The per-key counters of docs/contract.md §6, in limit_counters. Consuming
 * runs inside the acceptance transaction: one upsert that increments every
 * window only where the result stays within its limit. A window that refuses
 * returns no row; the caller then rolls the whole transaction back, so a
 * refused request consumes nothing. The updated rows stay locked until
 * commit, so concurrent requests of one key (in any process) serialise on
 * them and no window ever admits more than its limit.
 */

export type ConsumeResult = { ok: true; usages: WindowUsage[] } | { ok: false; refused: WindowKind[] };

export async function consumeLimits(q: Queryable, keyId: string, limits: Limits, count: number, now: number): Promise<ConsumeResult> {
  const windows = activeWindows(limits, now);
  if (windows.length === 0) return { ok: true, usages: [] };
  const limitOf = (k: WindowKind) => windows.find((w) => w.kind === k)?.limit ?? 2_147_483_647;
  const rows = await upsertLimitCounters<WindowKind>(q, keyId, windows, count, { minute: limitOf("minute"), hour: limitOf("hour"), day: limitOf("day") });
  const used = new Map(rows.map((r) => [r.window_kind, r.used]));
  const refused = windows.filter((w) => !used.has(w.kind)).map((w) => w.kind);
  if (refused.length > 0) return { ok: false, refused };
  return { ok: true, usages: windows.map((w) => ({ kind: w.kind, limit: w.limit, used: used.get(w.kind)! })) };
}

/** Current usage of every limited window (for the X-RateLimit headers of responses that consumed nothing). */
export async function readUsage(q: Queryable, keyId: string, limits: Limits, now: number): Promise<WindowUsage[]> {
  const windows = activeWindows(limits, now);
  if (windows.length === 0) return [];
  const rows = await selectLimitCounters<WindowKind>(q, keyId, windows);
  const used = new Map(rows.map((r) => [r.window_kind, r.used]));
  return windows.map((w) => ({ kind: w.kind, limit: w.limit, used: used.get(w.kind) ?? 0 }));
}

/**
 * The account-wide daily ceiling (docs/adr/0132): the same guarded upsert
 * on the account's row of the day, so that it holds across processes and
 * is rolled back with the rest when any window refuses. Refused: the day.
 */
export async function consumeAccountDay(q: Queryable, accountId: string, ceiling: number, count: number, now: number): Promise<ConsumeResult> {
  const used = await upsertAccountDayCounter(q, accountId, windowStart("day", now), count, ceiling);
  return used === undefined ? { ok: false, refused: ["day"] } : { ok: true, usages: [] };
}
