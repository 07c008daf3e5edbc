import type { Logger } from "../logger";
import type { AppMetrics } from "../metrics";
import type { PgBoss } from "../queue/boss";
import type { Database } from "../storage/database";
import { logEvents, type NewEvent } from "../domain/events/event-log";
import { addSuppression } from "../domain/accounts/suppressions";
import { createGroupCommit } from "../storage/group-commit";
import { enqueue } from "../queue/boss";
import { completeJobs } from "../storage/job-rows";
import { deliverQueue } from "../jobs/deliver";
import type { TlsVerdict } from "./tls-policy/tls-result";
import { withTransaction, type Tx } from "../storage/transaction";
import { writeRoundRows, type MessageFactsRow, type RecipientOutcomeRow } from "../storage/round-rows";
import type { Classification } from "./classify";
import { heldRetryAt, nextAttemptAt, type RetryPolicy } from "./retry-schedule";
import { untriedRetryAt } from "./untried-retry";

/**
 * Writes what delivery rounds did: a delivery_attempts row per recipient,
 * the recipient's new status, the final events (logged with logEvents so
 * that webhooks fan out in the same transaction), suppressions for 5.1.x,
 * a `deliver` job for deferred recipients at their next attempt time, and
the message's built size and link list (docs/adr/0320).
 * A recipient already final (another worker got there first) is left
 * alone: at most one final event per recipient.
 *
 * Group commit: rounds that finish while a write is in flight are written
 * together by the next one, in ONE transaction with one statement for all
 * their recipients (round trips, not rows, are what a busy worker pays for).
 * If that transaction fails, each round is written alone, so one bad round
 * cannot fail others.
 */

export interface RoundResult {
  recipientId: number;
  email: string;
  attempts: number;
  classification: Classification;
  mxHost: string;
  durationMs: number;
  /** The copy's TLS verdict, when a session was tried (tls-policy/tls-result.ts). */
  tls?: TlsVerdict;
}

export interface RoundContext {
  messageId: string;
  accountId: string;
  acceptedAt: Date;
  transport: string;
  requestId?: string;
  /** Bytes of the built message (messages.size), and what the row holds now. */
  size?: number;
  storedSize?: number;
  /** The message's trackable links, kept unless a list is kept already (messages.tracked_links). */
  links?: string[];
  /** The `deliver` job of this round: completed in the transaction that records it. */
  jobId?: string;
}

interface Planned {
  round: RoundContext;
  result: RoundResult;
  status: "delivered" | "failed" | "rejected" | "deferred";
  reason: string;
  next?: Date;
}

function plan(policy: RetryPolicy, round: RoundContext, results: RoundResult[], now: Date): Planned[] {
  return results.map((result) => {
    const c = result.classification;
    if (c.outcome !== "deferred") return { round, result, status: c.outcome, reason: c.diagnostic };
    const next =
      c.heldUntil !== undefined
        ? heldRetryAt(policy, { heldUntil: c.heldUntil, acceptedAt: round.acceptedAt, now })
        : c.untried
          ? untriedRetryAt(policy, { failedAttempts: result.attempts, acceptedAt: round.acceptedAt, now })
          : nextAttemptAt(policy, { failedAttempts: result.attempts + 1, acceptedAt: round.acceptedAt, now });
    if (next) return { round, result, status: "deferred", reason: c.diagnostic, next };
    if (c.heldUntil !== undefined) return { round, result, status: "failed", reason: `Held past the message's maximum age: ${c.diagnostic}` };
    return { round, result, status: "failed", reason: `Delivery gave up after ${result.attempts + (c.untried ? 0 : 1)} attempts: ${c.diagnostic}` };
  });
}

/** Writes rounds in the caller's transaction; returns, per round, the times (ms) of the retries it scheduled. */
async function writeRounds(tx: Tx, boss: PgBoss, policy: RetryPolicy, rounds: { round: RoundContext; results: RoundResult[] }[]): Promise<number[][]> {
  const now = new Date();
  const planned = rounds.map((r) => plan(policy, r.round, r.results, now));
  const counted = firstOutcomes(planned);
  const changed = await writeRoundRows(tx, [...counted].map(outcomeRow), rounds.flatMap(({ round }) => factsOf(round)), now);
  // Only a recipient this batch actually moved gets its event, suppression or retry: another worker may have finished it.
  const recorded = planned.map((roundPlans) => roundPlans.filter((p) => counted.has(p) && changed.has(p.result.recipientId)));
  await suppressHardBounces(tx, recorded.flat());
  const retryTimes: number[][] = [];
  for (const roundPlans of recorded) retryTimes.push(await scheduleRetries(tx, boss, roundPlans));
  await logEvents(tx, boss, recorded.flat().filter((p) => !p.next).map(finalEvent));
  // The jobs complete with their outcomes: no statement and commit of their own, and no window in
  // which an outcome is written while its job still looks unfinished (docs/adr/0022).
  const jobIds = rounds.flatMap((r) => (r.round.jobId ? [r.round.jobId] : []));
  await completeJobs(tx.sql, deliverQueue.name, jobIds);
  return retryTimes;
}

/** A recipient twice in one batch (a retried job racing the original): only its first outcome counts. */
function firstOutcomes(planned: Planned[][]): Set<Planned> {
  const seen = new Set<number>();
  return new Set(planned.flat().filter((p) => !seen.has(p.result.recipientId) && seen.add(p.result.recipientId)));
}

function outcomeRow(p: Planned): RecipientOutcomeRow {
  const c = p.result.classification;
  return {
    recipientId: p.result.recipientId,
    status: p.status,
    reply: c.diagnostic,
    nextAttemptAt: p.next ?? null,
    messageId: p.round.messageId,
    accountId: p.round.accountId,
    outcome: c.outcome,
    smtpCode: c.smtpCode,
    enhancedCode: c.enhancedCode,
    mxHost: p.result.mxHost,
    durationMs: p.result.durationMs,
    attemptSpent: !c.untried,
    ...(p.result.tls && { tls: p.result.tls }),
  };
}

/** The message's size (when the built copy differs from the row) and link list (when given), if either is new. */
function factsOf(r: RoundContext): MessageFactsRow[] {
  const size = r.size && r.size !== r.storedSize ? r.size : null;
  return size !== null || r.links ? [{ messageId: r.messageId, size, links: r.links ?? null }] : [];
}

/** A permanent failure that says the address does not exist (5.1.x) suppresses it for the account. */
async function suppressHardBounces(tx: Tx, recorded: Planned[]): Promise<void> {
  for (const p of recorded) {
    if (p.next || p.status !== "failed" || !p.result.classification.suppress) continue;
    await addSuppression(tx, {
      accountId: p.round.accountId,
      email: p.result.email,
      reason: "hard-bounce",
      detail: p.result.classification.diagnostic,
      messageId: p.round.messageId,
    });
  }
}

/** One `deliver` job per retry time of the round, for its deferred recipients; returns those times (ms). */
async function scheduleRetries(tx: Tx, boss: PgBoss, roundPlans: Planned[]): Promise<number[]> {
  const retries = new Map<number, number[]>();
  for (const p of roundPlans) {
    if (!p.next) continue;
    const at = p.next.getTime();
    const ids = retries.get(at);
    if (ids) ids.push(p.result.recipientId);
    else retries.set(at, [p.result.recipientId]);
  }
  const round = roundPlans[0]?.round;
  for (const [at, recipientIds] of retries) {
    const entry = { messageId: round!.messageId, recipientIds, ...(round!.requestId && { requestId: round!.requestId }) };
    await enqueue(boss, deliverQueue, { messages: [entry] }, { startAfter: new Date(at), key: round!.accountId, db: tx.sql });
  }
  return [...retries.keys()];
}

/** The final event of a recipient whose round ended (delivered, failed or rejected). */
function finalEvent(p: Planned): NewEvent {
  const c = p.result.classification;
  const attempts = p.result.attempts + 1;
  return {
    accountId: p.round.accountId,
    messageId: p.round.messageId,
    type: p.status as "delivered" | "failed" | "rejected",
    recipient: p.result.email,
    reason: p.reason,
    details:
      p.status === "delivered"
        ? { smtpCode: c.smtpCode, mxHost: p.result.mxHost, attempts, ...(p.result.tls && { tls: p.result.tls }) }
        : {
            smtpCode: c.smtpCode,
            enhancedCode: c.enhancedCode,
            diagnostic: c.diagnostic,
            bounceType: c.outcome === "deferred" ? "soft" : c.bounceType,
            mxHost: p.result.mxHost,
            attempts,
            ...(p.result.tls && { tls: p.result.tls }),
          },
  };
}

export interface PendingRound {
  policy: RetryPolicy;
  round: RoundContext;
  results: RoundResult[];
}

export type RoundWriter = (p: PendingRound) => Promise<number[]>;

/** One per deliver worker (lib/delivery/start.ts), one per stranded-recipient sweep. */
export function createRoundWriter(database: Database, boss: PgBoss, onBounces?: (accountId: string) => void): RoundWriter {
  // One transaction at a time: rounds that finish while it commits wait and share the next one.
  return createGroupCommit(
    // One policy per process: all items carry the same one.
    async (batch: PendingRound[]) => {
      const written = await withTransaction(database, (tx) => writeRounds(tx, boss, batch[0]!.policy, batch));
      // Committed: the reputation guardrails look at the accounts whose mail did not go through (docs/adr/0136).
      for (const p of batch) if (p.results.some((r) => r.classification.outcome !== "delivered")) onBounces?.(p.round.accountId);
      return written;
    },
    // A failed batch is written round by round, so one bad round cannot fail others.
    { maxBatch: 64, maxInFlight: 1, isolate: () => true },
  );
}

/** Records a round (group-committed with others); returns the times (ms) of the retries it scheduled. */
export function recordRound(ctx: { metrics: AppMetrics; log: Logger; roundWriter: RoundWriter }, policy: RetryPolicy, round: RoundContext, results: RoundResult[]): Promise<number[]> {
  const { deliveries } = ctx.metrics;
  for (const r of results) {
    deliveries.inc({ outcome: r.classification.outcome });
    // One line per delivery attempt, with the request id of the API call that accepted it.
    ctx.log.info(
      {
        requestId: round.requestId,
        messageId: round.messageId,
        recipient: r.email,
        outcome: r.classification.outcome,
        smtpCode: r.classification.smtpCode,
        mx: r.mxHost,
        attempt: r.attempts,
      },
      "delivery attempt",
    );
  }
  return ctx.roundWriter({ policy, round, results });
}
