import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Queryable } from "./database";
import { accounts } from "./schema";

/**
 * The reputation guardrails' columns of accounts (migration 1016,
 * docs/adr/0136). lib/domain/sending/guardrails decides when an account is
 * warned, paused and resumed; this is only the SQL. Each transition is one
 * guarded UPDATE, so of two processes evaluating at once one makes it.
 */

export interface GuardrailRow {
  sendingPausedAt: Date | null;
  sendingPausedReason: string | null;
  reputationWarnedAt: Date | null;
  reputationWarning: string | null;
  reputationResumedAt: Date | null;
  reputationResumedBy: string | null;
  pauseBounceRate: number | null;
  pauseComplaintRate: number | null;
  guardrailMinVolume: number | null;
}

const guardrailColumns = {
  sendingPausedAt: accounts.sendingPausedAt,
  sendingPausedReason: accounts.sendingPausedReason,
  reputationWarnedAt: accounts.reputationWarnedAt,
  reputationWarning: accounts.reputationWarning,
  reputationResumedAt: accounts.reputationResumedAt,
  reputationResumedBy: accounts.reputationResumedBy,
  pauseBounceRate: accounts.pauseBounceRate,
  pauseComplaintRate: accounts.pauseComplaintRate,
  guardrailMinVolume: accounts.guardrailMinVolume,
};

export async function selectGuardrailRow(q: Queryable, accountId: string): Promise<GuardrailRow | undefined> {
  const [row] = await q.db.select(guardrailColumns).from(accounts).where(eq(accounts.id, accountId));
  return row;
}

/** Pauses the account's sending unless it is paused already; true when this call paused it. */
export async function markSendingPaused(q: Queryable, accountId: string, reason: string): Promise<boolean> {
  const rows = await q.db
    .update(accounts)
    .set({ sendingPausedAt: sql`now()`, sendingPausedReason: reason, updatedAt: sql`now()` })
    .where(and(eq(accounts.id, accountId), isNull(accounts.sendingPausedAt)))
    .returning({ id: accounts.id });
  return rows.length > 0;
}

/** Records the warning unless one is recorded already; true when this call recorded it. */
export async function markReputationWarning(q: Queryable, accountId: string, warning: string): Promise<boolean> {
  const rows = await q.db
    .update(accounts)
    .set({ reputationWarnedAt: sql`now()`, reputationWarning: warning })
    .where(and(eq(accounts.id, accountId), isNull(accounts.reputationWarnedAt)))
    .returning({ id: accounts.id });
  return rows.length > 0;
}

export async function clearReputationWarning(q: Queryable, accountId: string): Promise<void> {
  await q.db
    .update(accounts)
    .set({ reputationWarnedAt: null, reputationWarning: null })
    .where(and(eq(accounts.id, accountId), isNotNull(accounts.reputationWarnedAt)));
}

/** Lifts the pause and the warning, and records who resumed and when; undefined when the account is not paused. */
export async function markSendingResumed(q: Queryable, accountId: string, by: string): Promise<GuardrailRow | undefined> {
  const [row] = await q.db
    .update(accounts)
    .set({
      sendingPausedAt: null,
      sendingPausedReason: null,
      reputationWarnedAt: null,
      reputationWarning: null,
      reputationResumedAt: sql`now()`,
      reputationResumedBy: by,
      updatedAt: sql`now()`,
    })
    .where(and(eq(accounts.id, accountId), isNotNull(accounts.sendingPausedAt)))
    .returning(guardrailColumns);
  return row;
}

/** The account's own thresholds; a null restores the instance's. */
export async function updateGuardrailOverrides(
  q: Queryable,
  accountId: string,
  values: Partial<Pick<GuardrailRow, "pauseBounceRate" | "pauseComplaintRate" | "guardrailMinVolume">>,
): Promise<GuardrailRow | undefined> {
  const [row] = await q.db
    .update(accounts)
    .set({ ...values, updatedAt: sql`now()` })
    .where(eq(accounts.id, accountId))
    .returning(guardrailColumns);
  return row;
}
