/**
 * What happens after an attempt (docs/contract.md §10.4, §16): 2xx is
 * success, 406 means the receiver refuses (no retry), 410 means the
 * endpoint is gone (no retry, and the webhook is disabled), anything else
 * (a timeout or refused connection is status 0) is retried after
 * schedule[attempts - 1], so a schedule of n delays gives n + 1 attempts.
 * A 429 or 503 with Retry-After is not tried again before it says (at most
 * MAX_RETRY_AFTER_MS later than now). A delivery sent again by hand
 * (`singleAttempt`) gets that one attempt only.
 */
export type AttemptVerdict =
  | { kind: "delivered" }
  | { kind: "refused" }
  | { kind: "gone" }
  | { kind: "retry"; delayMs: number }
  | { kind: "exhausted" };

/** A receiver's Retry-After is honoured up to this (a day): a larger one cannot hold a delivery longer. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export function verdictOf(
  statusCode: number,
  attemptsSoFar: number,
  scheduleMs: readonly number[],
  options: { retryAfterMs?: number; singleAttempt?: boolean } = {},
): AttemptVerdict {
  if (statusCode >= 200 && statusCode < 300) return { kind: "delivered" };
  if (statusCode === 406) return { kind: "refused" };
  if (statusCode === 410) return { kind: "gone" };
  const delay = options.singleAttempt ? undefined : scheduleMs[attemptsSoFar - 1];
  if (delay === undefined) return { kind: "exhausted" };
  const asked = options.retryAfterMs === undefined ? 0 : Math.min(options.retryAfterMs, MAX_RETRY_AFTER_MS);
  return { kind: "retry", delayMs: Math.max(delay, asked) };
}

/** Attempts in all for a schedule: the first plus one per delay. */
export function maxAttempts(scheduleMs: readonly number[]): number {
  return scheduleMs.length + 1;
}
