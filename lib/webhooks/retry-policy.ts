/**
 * What happens after an attempt (docs/contract.md §10.4): 2xx is
 * success, 406 means the receiver refuses (no retry), anything else (a
 * timeout or refused connection is status 0) is retried after
 * schedule[attempts - 1], so a schedule of n delays gives n + 1 attempts.
 */
export type AttemptVerdict =
  | { kind: "delivered" }
  | { kind: "refused" }
  | { kind: "retry"; delayMs: number }
  | { kind: "exhausted" };

export function verdictOf(statusCode: number, attemptsSoFar: number, scheduleMs: readonly number[]): AttemptVerdict {
  if (statusCode >= 200 && statusCode < 300) return { kind: "delivered" };
  if (statusCode === 406) return { kind: "refused" };
  const delay = scheduleMs[attemptsSoFar - 1];
  return delay === undefined ? { kind: "exhausted" } : { kind: "retry", delayMs: delay };
}

/** Attempts in all for a schedule: the first plus one per delay. */
export function maxAttempts(scheduleMs: readonly number[]): number {
  return scheduleMs.length + 1;
}
