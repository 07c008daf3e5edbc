import type { Logger } from "../logger";
import type { AppMetrics } from "../metrics";
import type { PgBoss } from "../queue/boss";
import type { Database } from "../storage/database";
import { logEvents, type NewEvent } from "../domain/event-log";
import { addSuppression } from "../domain/suppressions";
import { createGroupCommit } from "../storage/group-commit";
import { enqueue } from "../queue/boss";
import { completeJobs } from "../queue/job-sql";
import { deliverQueue } from "../queue/jobs";
import { withTransaction, type Tx } from "../storage/transaction";
import type { Classification } from "./classify";
import { nextAttemptAt, type RetryPolicy } from "./retry-schedule";

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
    const next = nextAttemptAt(policy, { failedAttempts: result.attempts + 1, acceptedAt: round.acceptedAt, now });
    if (next) return { round, result, status: "deferred", reason: c.diagnostic, next };
    return { round, result, status: "failed", reason: `Delivery gave up after ${result.attempts + 1} attempts: ${c.diagnostic}` };
  });
}

/** Writes rounds in the caller's transaction; returns, per round, the times (ms) of the retries it scheduled. */
async function writeRounds(tx: Tx, boss: PgBoss, policy: RetryPolicy, rounds: { round: RoundContext; results: RoundResult[] }[]): Promise<number[][]> {
  const now = new Date();
  const planned = rounds.map((r) => plan(policy, r.round, r.results, now));
  // A recipient twice in one batch (a retried job racing the original): only its first outcome counts.
  const seen = new Set<number>();
  const all = planned.flat().filter((p) => !seen.has(p.result.recipientId) && seen.add(p.result.recipientId));
  const first = new Set(all);
  const facts = rounds.filter((r) => r.round.links || (r.round.size && r.round.size !== r.round.storedSize));
  // One statement: status changes (guarded), attempt rows for those that changed, message sizes and link lists.
  const { rows } = await tx.client.query<{ id: number }>({
    name: "mailroom_record_rounds",
    text: `WITH i AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::uuid[], $6::uuid[], $7::text[], $8::int[], $9::text[], $10::text[], $11::int[])
         AS t(rid, status, reply, next_at, message_id, account_id, outcome, smtp_code, enhanced, mx, dur)
     ), u AS (
       UPDATE message_recipients r
          SET status = i.status, attempts = r.attempts + 1, last_reply = i.reply, last_attempt_at = $12, next_attempt_at = i.next_at, updated_at = $12
         FROM i
        WHERE r.id = i.rid AND r.status IN ('queued', 'deferred')
       RETURNING r.id
     ), a AS (
       INSERT INTO delivery_attempts (recipient_id, message_id, account_id, attempted_at, outcome, smtp_code, enhanced_code, reply, mx_host, duration_ms)
       SELECT i.rid, i.message_id, i.account_id, $12, i.outcome, i.smtp_code, i.enhanced, i.reply, i.mx, i.dur FROM i JOIN u ON u.id = i.rid
     ), s AS (
       UPDATE messages m SET size = COALESCE(v.size, m.size), tracked_links = COALESCE(m.tracked_links, v.links::jsonb)
         FROM unnest($13::uuid[], $14::int[], $15::text[]) AS v(id, size, links) WHERE m.id = v.id
     )
     SELECT id FROM u`,
    values: [
      all.map((p) => p.result.recipientId),
      all.map((p) => p.status),
      all.map((p) => p.result.classification.diagnostic),
      all.map((p) => p.next ?? null),
      all.map((p) => p.round.messageId),
      all.map((p) => p.round.accountId),
      all.map((p) => p.result.classification.outcome),
      all.map((p) => p.result.classification.smtpCode),
      all.map((p) => p.result.classification.enhancedCode),
      all.map((p) => p.result.mxHost),
      all.map((p) => p.result.durationMs),
      now,
      // unnest (estimated 10 rows), not jsonb_to_recordset (100): with it, PostgreSQL took 1.5–1.9 ms
      // of CPU per message in bench:e2e instead of 1.3–1.5 (docs/adr/0320; the plan itself not captured).
      facts.map(({ round: r }) => r.messageId),
      facts.map(({ round: r }) => (r.size && r.size !== r.storedSize ? r.size : null)),
      facts.map(({ round: r }) => (r.links ? JSON.stringify(r.links) : null)),
    ],
  });
  const changed = new Set(rows.map((r) => Number(r.id)));

  const events: NewEvent[] = [];
  const retryTimes: number[][] = [];
  for (const roundPlans of planned) {
    const retries = new Map<number, number[]>();
    for (const p of roundPlans) {
      if (!first.has(p) || !changed.has(p.result.recipientId)) continue;
      const c = p.result.classification;
      if (p.next) {
        const at = p.next.getTime();
        retries.set(at, [...(retries.get(at) ?? []), p.result.recipientId]);
        continue;
      }
      if (p.status === "failed" && c.suppress) {
        await addSuppression(tx.db, {
          accountId: p.round.accountId,
          email: p.result.email,
          reason: "hard-bounce",
          detail: c.diagnostic,
          messageId: p.round.messageId,
        });
      }
      const attempts = p.result.attempts + 1;
      events.push({
        accountId: p.round.accountId,
        messageId: p.round.messageId,
        type: p.status as "delivered" | "failed" | "rejected",
        recipient: p.result.email,
        reason: p.reason,
        details:
          p.status === "delivered"
            ? { smtpCode: c.smtpCode, mxHost: p.result.mxHost, attempts }
            : {
                smtpCode: c.smtpCode,
                enhancedCode: c.enhancedCode,
                diagnostic: c.diagnostic,
                bounceType: c.outcome === "deferred" ? "soft" : c.bounceType,
                mxHost: p.result.mxHost,
                attempts,
              },
      });
    }
    const round = roundPlans[0]?.round;
    for (const [at, recipientIds] of retries) {
      const entry = { messageId: round!.messageId, recipientIds, ...(round!.requestId && { requestId: round!.requestId }) };
      await enqueue(boss, deliverQueue, { messages: [entry] }, { startAfter: new Date(at), db: tx.sql });
    }
    retryTimes.push([...retries.keys()]);
  }
  await logEvents(tx, boss, events);
  // The jobs complete with their outcomes: no statement and commit of their own, and no window in
  // which an outcome is written while its job still looks unfinished (docs/adr/0022).
  const jobIds = rounds.flatMap((r) => (r.round.jobId ? [r.round.jobId] : []));
  await completeJobs(tx.sql, deliverQueue.name, jobIds);
  return retryTimes;
}

export interface PendingRound {
  policy: RetryPolicy;
  round: RoundContext;
  results: RoundResult[];
}

export type RoundWriter = (p: PendingRound) => Promise<number[]>;

/** One per process (buildAppContext, `ctx.roundWriter`). */
export function createRoundWriter(database: Database, boss: PgBoss): RoundWriter {
  // One transaction at a time: rounds that finish while it commits wait and share the next one.
  return createGroupCommit(
    // One policy per process: all items carry the same one.
    (batch: PendingRound[]) => withTransaction(database, (tx) => writeRounds(tx, boss, batch[0]!.policy, batch)),
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
