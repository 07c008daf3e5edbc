import { retryDelayMs, type RetryPolicy } from "./retry-schedule";

/**
 * When a copy that never got the peer's decision is tried again (pure,
 * docs/adr/0325): no slot for it (a stalled lane's share used up, the slot
 * wait run out, an earlier copy of its round timed out) or a probe given up
 * at the stall time. Nothing was learnt about the recipient, so it is tried
 * again within seconds rather than after the schedule's wait, and no attempt
 * is spent. The wait grows with the message's age (a tenth of it, at least
 * UNTRIED_RETRY_MIN_MS), so a recipient that keeps finding no slot is tried
 * some 60 times in an hour, not every few seconds; never later than the
 * schedule's next wait, and never past the maximum age.
 */

export const UNTRIED_RETRY_MIN_MS = 2_000;

/**
 * The pool's error codes of a copy that was not tried (smtp-pool.ts: no slot within the share, within the
 * slot wait, or delivery stopping; send-by-domain.ts: an earlier copy of the round timed out) or was given up
 * as a probe (smtp-client.ts).
 */
const UNTRIED_CODES = new Set(["ESLOTSHARE", "ESLOTWAIT", "ESKIPPED", "EGIVENUP"]);

export const wasUntried = (errorCode: string | undefined): boolean => errorCode !== undefined && UNTRIED_CODES.has(errorCode);

export function untriedRetryDelayMs(ageMs: number, nextScheduledWaitMs: number): number {
  return Math.min(nextScheduledWaitMs, Math.max(UNTRIED_RETRY_MIN_MS, Math.floor(ageMs / 10)));
}

/** The time of the next try, or undefined when it would come past the message's maximum age. */
export function untriedRetryAt(policy: RetryPolicy, input: { failedAttempts: number; acceptedAt: Date; now: Date }): Date | undefined {
  const age = Math.max(0, input.now.getTime() - input.acceptedAt.getTime());
  const at = input.now.getTime() + untriedRetryDelayMs(age, retryDelayMs(input.failedAttempts + 1, policy.scheduleMs));
  if (at - input.acceptedAt.getTime() > policy.maxAgeMs) return undefined;
  return new Date(at);
}
