import type { Limits } from "../accounts/plans";

/**
 * Limits arithmetic (docs/contract.md §6): fixed UTC minute, hour and day
 * windows. Pure functions; the counters live in limit_counters
 * (lib/domain/sending/limit-counters.ts).
 */

export type WindowKind = "minute" | "hour" | "day";
export const WINDOW_KINDS: WindowKind[] = ["minute", "hour", "day"];
export const WINDOW_SECONDS: Record<WindowKind, number> = { minute: 60, hour: 3600, day: 86_400 };

/** Start (Unix seconds) of the window that contains `now`. */
export function windowStart(kind: WindowKind, now: number): number {
  return now - (now % WINDOW_SECONDS[kind]);
}

export function windowEnd(kind: WindowKind, now: number): number {
  return windowStart(kind, now) + WINDOW_SECONDS[kind];
}

/** Seconds from `now` to the end of its window: what Retry-After says (at least 1). */
export function secondsToReset(kind: WindowKind, now: number): number {
  return Math.max(1, windowEnd(kind, now) - Math.floor(now));
}

export interface WindowLimit {
  kind: WindowKind;
  limit: number;
  start: number;
}

/** Whether any window is limited (an `unlimited` key skips the counters altogether). */
export function hasLimits(limits: Limits): boolean {
  return limits.perMinute !== null || limits.perHour !== null || limits.perDay !== null;
}

/** The windows that have a limit (null = unlimited), each at `now`. */
export function activeWindows(limits: Limits, now: number): WindowLimit[] {
  const byKind: Record<WindowKind, number | null> = { minute: limits.perMinute, hour: limits.perHour, day: limits.perDay };
  return WINDOW_KINDS.filter((k) => byKind[k] !== null).map((kind) => ({ kind, limit: byKind[kind]!, start: windowStart(kind, now) }));
}

export interface WindowUsage {
  kind: WindowKind;
  limit: number;
  used: number;
}

export interface RateLimitHeaders {
  "X-RateLimit-Limit": string;
  "X-RateLimit-Remaining": string;
  /** Unix seconds at which the window resets. */
  "X-RateLimit-Reset": string;
}

/**
 * The tightest window: the one with the fewest emails remaining; on a tie
 * the one that resets first. Undefined without limits.
 */
export function tightestWindow(usages: WindowUsage[]): WindowUsage | undefined {
  let best: WindowUsage | undefined;
  for (const u of usages) {
    const remaining = Math.max(0, u.limit - u.used);
    const bestRemaining = best ? Math.max(0, best.limit - best.used) : Infinity;
    if (remaining < bestRemaining) best = u; // WINDOW_KINDS order: shorter windows first win ties
  }
  return best;
}

export function rateLimitHeaders(usages: WindowUsage[], now: number): RateLimitHeaders | undefined {
  const t = tightestWindow(usages);
  if (!t) return undefined;
  return {
    "X-RateLimit-Limit": String(t.limit),
    "X-RateLimit-Remaining": String(Math.max(0, t.limit - t.used)),
    "X-RateLimit-Reset": String(windowEnd(t.kind, now)),
  };
}

/**
 * Of the windows that refused, the one to report: the day window (code 17,
 * the quota) if it refused, else the longest refusing window (code 429), so
 * that Retry-After never invites a retry that another window would refuse.
 */
export function refusingWindow(refused: WindowKind[]): { kind: WindowKind; code: 17 | 429 } | undefined {
  if (refused.includes("day")) return { kind: "day", code: 17 };
  if (refused.includes("hour")) return { kind: "hour", code: 429 };
  if (refused.includes("minute")) return { kind: "minute", code: 429 };
  return undefined;
}

/**
 * The account-wide daily ceiling that all the account's keys share
 * (docs/contract.md §6.5, docs/adr/0132): the account's own value, else the
 * instance's (MAILROOM_ACCOUNT_DAILY_LIMIT); 0 is none. Null: no ceiling.
 */
export function accountDailyCeiling(accountValue: number | null | undefined, instanceDefault: number): number | null {
  const ceiling = accountValue ?? instanceDefault;
  return ceiling > 0 ? ceiling : null;
}
