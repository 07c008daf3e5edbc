/**
 * When to try a deferred recipient again (pure). The schedule lists the
 * waits after the 1st, 2nd, ... failed attempt; past its end the last wait
 * repeats. Nothing is retried once the message is older than maxAgeMs at
 * the time of the next attempt: the recipient then fails for good.
 */
export interface RetryPolicy {
  scheduleMs: number[];
  maxAgeMs: number;
}

export function retryDelayMs(failedAttempts: number, scheduleMs: number[]): number {
  if (scheduleMs.length === 0) return 60_000;
  const i = Math.min(Math.max(failedAttempts, 1), scheduleMs.length) - 1;
  return scheduleMs[i]!;
}

/** The time of the next attempt, or undefined when retries are exhausted. */
export function nextAttemptAt(
  policy: RetryPolicy,
  input: { failedAttempts: number; acceptedAt: Date; now: Date },
): Date | undefined {
  const at = input.now.getTime() + retryDelayMs(input.failedAttempts, policy.scheduleMs);
  if (at - input.acceptedAt.getTime() > policy.maxAgeMs) return undefined;
  return new Date(at);
}

/**
 * The next try of a recipient deferred for its destination (a hold, a throttle, a suspension:
 * destinations/gate.ts): at the hold's end or the throttle's next free moment, but never past the
 * message's maximum age, where it is tried a last time; undefined once that age is reached.
 */
export function heldRetryAt(policy: RetryPolicy, input: { heldUntil: number; acceptedAt: Date; now: Date }): Date | undefined {
  const deadline = input.acceptedAt.getTime() + policy.maxAgeMs;
  const now = input.now.getTime();
  if (now >= deadline) return undefined;
  return new Date(Math.min(Math.max(input.heldUntil, now), deadline));
}
