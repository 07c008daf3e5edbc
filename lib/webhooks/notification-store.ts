import { enqueueMany, type PgBoss } from "../queue/boss";
import { completeJobs as completeQueueJobs } from "../storage/job-rows";
import { notifyQueue } from "../jobs/notify";
import type { Database, Queryable } from "../storage/database";
import {
  claimNotificationRows,
  postponeNotifications,
  recordAttemptRows,
  takeOverdueNotifications,
  writeLastResponses,
} from "../storage/notification-rows";
import { withTransaction, type Tx } from "../storage/transaction";
import { preparedSql } from "../storage/prepared-sql";

/**
 * The outbox rows' state changes. A webhook_notifications row is the truth;
 * `notify` jobs only say "look at this row now". A worker claims a row by
 * pushing its next_attempt_at out by a lease, so two jobs for one row never
 * post it twice at once, and a worker that dies leaves a row that becomes
 * claimable again when the lease ends.
 */

export interface ClaimedNotification {
  id: number;
  webhookId: number;
  accountId: string;
  /** Attempts made before this one. */
  attempts: number;
  payload: Record<string, unknown>;
  url: string;
  /** Read now, so that a rotated key signs every later attempt. */
  signingKey: string;
  /** Sent again by hand (retry, replay): this attempt is its only one (docs/contract.md §16). */
  singleAttempt: boolean;
}

/** Claims the pending, due rows among `ids`; rows not returned are done, cancelled, gone or not yet due. */
export async function claimNotifications(q: Queryable, ids: number[], leaseMs: number): Promise<ClaimedNotification[]> {
  if (ids.length === 0) return [];
  const rows = await claimNotificationRows(q, ids, leaseMs);
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    accountId: r.account_id,
    attempts: r.attempts,
    payload: r.payload,
    url: r.url,
    signingKey: r.webhook_signing_key,
    singleAttempt: r.single_attempt,
  }));
}

export interface AttemptRecord {
  notificationId: number;
  webhookId: number;
  /** Attempts made so far, this one included. */
  attempts: number;
  status: "delivered" | "failed" | "pending";
  /** For status pending: when to try again. */
  retryInMs?: number;
  statusCode: number;
  /** First 1,000 characters of the answer (the webhook record). */
  body: string;
  /** First 4 KB of the answer (the attempt log). */
  bodyExcerpt: string;
  /** Nothing was sent (the notification could not be built): says nothing about the endpoint. */
  notSent?: boolean;
  durationMs: number;
  error?: string;
  startedAt: Date;
  endedAt: Date;
}

/**
 * After attempts: the notification rows, the attempt log, the retry jobs and
 * the completion of the jobs that carried the attempts, in one transaction;
 * then each webhook's LastResponse* members (the latest attempt wins, never
 * an older one) in a statement of their own, so that the hot webhook row is
 * locked only for that statement and several writers can run side by side.
 * Rows deleted meanwhile (webhook deleted) drop out.
 */
export async function recordAttempts(database: Database, boss: PgBoss, records: AttemptRecord[], jobIds: string[]): Promise<void> {
  const recorded = await withTransaction(database, async (tx) => {
    await completeJobs(tx, jobIds);
    if (records.length === 0) return [];
    const rows = await recordAttemptRows(
      tx,
      records.map((a) => ({
        id: a.notificationId,
        webhook_id: a.webhookId,
        attempts: a.attempts,
        status: a.status,
        retry_ms: a.retryInMs ?? null,
        code: a.statusCode,
        excerpt: a.bodyExcerpt,
        duration: a.durationMs,
        error: a.error ?? null,
        started_at: a.startedAt.toISOString(),
        ended_at: a.endedAt.toISOString(),
      })),
    );
    await sendNotifyJobs(
      tx,
      boss,
      rows.filter((r) => r.retry_ms !== null).map((r) => ({ notificationId: r.id, delayMs: r.retry_ms ?? 0 })),
    );
    const done = new Set(rows.map((r) => r.id));
    return records.filter((a) => done.has(a.notificationId));
  });
  await updateWebhookRecords(database, recorded);
}

/** Each webhook's LastResponse* members from its latest attempt among `records`, unless a later one is already shown. */
async function updateWebhookRecords(q: Queryable, records: AttemptRecord[]): Promise<void> {
  const latest = new Map<number, AttemptRecord>();
  for (const a of records) {
    const seen = latest.get(a.webhookId);
    if (!seen || seen.endedAt <= a.endedAt) latest.set(a.webhookId, a);
  }
  if (latest.size === 0) return;
  await writeLastResponses(
    q,
    [...latest.values()].map((a) => ({
      webhook_id: a.webhookId,
      code: a.statusCode,
      body: a.body,
      ended_at: a.endedAt.toISOString(),
      attempts: a.attempts,
    })),
  );
}

/**
 * Gives claimed rows back without an attempt (their destination is saturated,
 * or the worker is stopping): due again after `delayMs`, with a new job; the
 * jobs that carried them are completed.
 */
export async function releaseNotifications(
  database: Database,
  boss: PgBoss,
  notificationIds: number[],
  jobIds: string[],
  delayMs: number,
): Promise<void> {
  await withTransaction(database, async (tx) => {
    if (notificationIds.length > 0) {
      const ids = await postponeNotifications(tx, notificationIds, delayMs);
      await sendNotifyJobs(tx, boss, ids.map((id) => ({ notificationId: id, delayMs })));
    }
    await completeJobs(tx, jobIds);
  });
}

/** Completes jobs that found nothing to do (row done, cancelled, deleted, or claimed by another job). */
export async function completeStaleJobs(boss: PgBoss, jobIds: string[]): Promise<void> {
  await completeQueueJobs(boss.getDb(), notifyQueue.name, jobIds);
}

/**
 * Pending rows overdue by more than `overdueMs` (their job was lost, or a
 * worker died holding the claim) get a new job. Safe in several processes
 * at once: rows are taken with SKIP LOCKED and pushed to "due now".
 */
export async function sweepOverdue(database: Database, boss: PgBoss, overdueMs: number, limit = 500): Promise<number> {
  return withTransaction(database, async (tx) => {
    const ids = await takeOverdueNotifications(tx, overdueMs, limit);
    await sendNotifyJobs(tx, boss, ids.map((id) => ({ notificationId: id, delayMs: 0 })));
    return ids.length;
  });
}

export async function sendNotifyJobs(tx: Tx, boss: PgBoss, jobs: { notificationId: number; delayMs: number }[]): Promise<void> {
  await enqueueMany(
    boss,
    notifyQueue,
    jobs.map((j) => ({
      payload: { notificationId: j.notificationId },
      // Relative to the database's clock, like next_attempt_at above.
      ...(j.delayMs > 0 && { startAfter: `${Math.ceil(j.delayMs)} milliseconds` }),
    })),
    preparedSql(tx),
  );
}

async function completeJobs(tx: Tx, jobIds: string[]): Promise<void> {
  await completeQueueJobs(preparedSql(tx), notifyQueue.name, jobIds);
}
