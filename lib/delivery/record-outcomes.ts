import type { AppContext } from "../context";
import { logEvents, type NewEvent } from "../domain/event-log";
import { addSuppression } from "../domain/suppressions";
import { QUEUE, type DeliverJob } from "../queue/jobs";
import { withTransaction } from "../storage/transaction";
import type { Classification } from "./classify";
import { nextAttemptAt, type RetryPolicy } from "./retry-schedule";

/**
 * Writes what one delivery round did, in one transaction: a delivery_attempts
 * row per recipient, the recipient's new status, the final events (logged
 * with logEvents so that webhooks fan out in the same transaction),
 * suppressions for 5.1.x, and a `deliver` job for the deferred recipients
 * at their next attempt time. A recipient already final (another worker got
 * there first) is left alone: at most one final event per recipient.
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
}

/** Records the round; returns the times (ms) of the retries it scheduled. */
export async function recordRound(ctx: AppContext, policy: RetryPolicy, round: RoundContext, results: RoundResult[]): Promise<number[]> {
  const now = new Date();
  return withTransaction(ctx.database, async (tx) => {
    const events: NewEvent[] = [];
    const retries = new Map<number, number[]>();
    // messages.size becomes the built size, in the first recipient's statement.
    let sizePending = Boolean(round.size && round.size !== round.storedSize);
    for (const r of results) {
      const c = r.classification;
      const updateSize = sizePending;
      sizePending = false;
      let final: "delivered" | "failed" | "rejected" | undefined = c.outcome === "deferred" ? undefined : c.outcome;
      let next: Date | undefined;
      let reason = c.diagnostic;
      if (c.outcome === "deferred") {
        next = nextAttemptAt(policy, { failedAttempts: r.attempts + 1, acceptedAt: round.acceptedAt, now });
        if (!next) {
          final = "failed";
          reason = `Delivery gave up after ${r.attempts + 1} attempts: ${c.diagnostic}`;
        }
      }
      // The status change and the attempt row in one statement; nothing when another worker already finished it.
      const { rowCount } = await tx.client.query(
        `WITH u AS (
           UPDATE message_recipients
              SET status = $2, attempts = attempts + 1, last_reply = $3, last_attempt_at = $4, next_attempt_at = $5, updated_at = $4
            WHERE id = $1 AND status IN ('queued', 'deferred')
           RETURNING id)${updateSize ? `, s AS (UPDATE messages SET size = $13 WHERE id = $6)` : ""}
         INSERT INTO delivery_attempts (recipient_id, message_id, account_id, attempted_at, outcome, smtp_code, enhanced_code, reply, mx_host, duration_ms)
         SELECT u.id, $6, $7, $4, $8, $9, $10, $3, $11, $12 FROM u`,
        [
          r.recipientId,
          final ?? "deferred",
          c.diagnostic,
          now,
          next ?? null,
          round.messageId,
          round.accountId,
          c.outcome,
          c.smtpCode,
          c.enhancedCode,
          r.mxHost,
          r.durationMs,
          ...(updateSize ? [round.size] : []),
        ],
      );
      if (!rowCount) continue;
      if (next) {
        const at = next.getTime();
        retries.set(at, [...(retries.get(at) ?? []), r.recipientId]);
        continue;
      }
      if (final === "failed" && c.suppress) {
        await addSuppression(tx.db, {
          accountId: round.accountId,
          email: r.email,
          reason: "hard-bounce",
          detail: c.diagnostic,
          messageId: round.messageId,
        });
      }
      events.push({
        accountId: round.accountId,
        messageId: round.messageId,
        type: final!,
        recipient: r.email,
        reason,
        details:
          final === "delivered"
            ? { smtpCode: c.smtpCode, mxHost: r.mxHost, attempts: r.attempts + 1 }
            : {
                smtpCode: c.smtpCode,
                enhancedCode: c.enhancedCode,
                diagnostic: c.diagnostic,
                bounceType: c.outcome === "deferred" ? "soft" : c.bounceType,
                mxHost: r.mxHost,
                attempts: r.attempts + 1,
              },
      });
    }
    for (const [at, recipientIds] of retries) {
      const job: DeliverJob = { messageId: round.messageId, recipientIds, requestId: round.requestId };
      await ctx.boss.send(QUEUE.deliver, job as unknown as object, { startAfter: new Date(at), db: tx.sql } as never);
    }
    await logEvents(tx, ctx.boss, events);
    return [...retries.keys()];
  });
}
