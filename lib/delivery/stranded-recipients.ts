import type { AppContext } from "../context";
import type { Classification } from "./classify";
import { createRoundWriter, recordRound, type RoundResult } from "./record-outcomes";
import { findStrandedRecipients, type StrandedRow } from "../storage/delivery-rows";

/**
 * The safety net of "every accepted recipient reaches a final event"
 * (run by the maintenance job). A recipient still `queued` or `deferred`
 * is finalised with a `failed` event (and so its webhook notification) when
 *  - no `deliver` job that could still deliver it exists any more (pg-boss
 *    gave up on a job that kept throwing, or it was deleted or archived
 *    without an outcome), or
 *  - its message is older than MAILROOM_DELIVERY_MAX_AGE plus the job
 *    expiry and a grace period: the last retry cannot be that late.
 * Jobs and outcomes commit in the same transactions as the recipients'
 * status (acceptance, deferral), and the query reads one snapshot, so a
 * recipient with a live job is never taken for stranded; the grace period
 * only covers clocks and anything not yet committed. The outcome is written
 * with the guarded update of every round, so a worker that finishes at the
 * same moment still yields one final event.
 */

/** How long a recipient must have been untouched before a missing job counts. */
export const STRANDED_GRACE_MS = 2 * 60_000;
const BATCH = 1000;

function failedClassification(diagnostic: string, enhancedCode: string): Classification {
  return { outcome: "failed", smtpCode: null, enhancedCode, diagnostic, bounceType: "soft", suppress: false };
}

export async function finalizeStrandedRecipients(ctx: AppContext, now = new Date()): Promise<number> {
  const maxAgeMs = ctx.config.delivery.maxAgeMs;
  const oldest = new Date(now.getTime() - maxAgeMs - ctx.config.delivery.jobExpireSeconds * 1000 - STRANDED_GRACE_MS);
  const untouchedSince = new Date(now.getTime() - STRANDED_GRACE_MS);
  const policy = { scheduleMs: ctx.config.delivery.retryScheduleMs, maxAgeMs };
  // Its rounds are written one after another: a writer of its own (the deliver worker's is the loop's, start.ts).
  const recorder = { metrics: ctx.metrics, log: ctx.log, roundWriter: createRoundWriter(ctx.database, ctx.boss, (accountId) => ctx.guardrails.note(accountId)) };
  let total = 0;
  let afterId = "0";
  for (;;) {
    const rows = await findStrandedRecipients(ctx.database, { oldest, untouchedSince, afterId, limit: BATCH });
    if (rows.length === 0) return total;
    afterId = rows[rows.length - 1]!.id;
    const byMessage = new Map<string, StrandedRow[]>();
    for (const row of rows) byMessage.set(row.message_id, [...(byMessage.get(row.message_id) ?? []), row]);
    for (const [messageId, list] of byMessage) {
      const first = list[0]!;
      const results: RoundResult[] = list.map((r) => {
        const last = r.last_reply ? `; last reply: ${r.last_reply}` : "";
        const classification = r.too_old
          ? failedClassification(`Delivery expired: still pending ${Math.round(maxAgeMs / 3_600_000)}h after acceptance${last}`, "5.4.7")
          : failedClassification(`Internal error: the delivery job ended without an outcome${last}`, "5.3.0");
        return { recipientId: Number(r.id), email: r.email, attempts: r.attempts, classification, mxHost: "", durationMs: 0 };
      });
      for (const r of list) {
        ctx.log.error({ messageId, recipient: r.email, tooOld: r.too_old }, "stranded recipient finalised as failed");
      }
      await recordRound(recorder, policy, { messageId, accountId: first.account_id, acceptedAt: first.created_at, transport: "maintenance" }, results);
      total += list.length;
    }
    if (rows.length < BATCH) return total;
  }
}
