import type pg from "pg";
import { enqueueMany, type PgBoss } from "../queue/boss";
import { completeJobs as completeQueueJobs } from "../queue/job-sql";
import { notifyQueue } from "../jobs/notify";
import type { Database } from "../storage/database";
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
export async function claimNotifications(pool: pg.Pool, ids: number[], leaseMs: number): Promise<ClaimedNotification[]> {
  if (ids.length === 0) return [];
  const { rows } = await pool.query<{
    id: number;
    webhook_id: number;
    account_id: string;
    attempts: number;
    payload: Record<string, unknown>;
    url: string;
    webhook_signing_key: string;
    single_attempt: boolean;
  }>({
    name: "mailroom_webhook_claim",
    text: `UPDATE webhook_notifications n
        SET next_attempt_at = now() + $2 * interval '1 millisecond'
       FROM webhooks w
       JOIN accounts a ON a.id = w.account_id
      WHERE n.id = ANY ($1::bigint[]) AND w.id = n.webhook_id
        AND n.status = 'pending' AND n.next_attempt_at <= now() + interval '1 second'
      RETURNING n.id, n.webhook_id, n.account_id, n.attempts, n.payload, w.url, a.webhook_signing_key, n.single_attempt`,
    values: [ids, leaseMs],
  });
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
    const { rows } = await tx.client.query<{ id: number; retry_ms: number | null }>({
      name: "mailroom_webhook_record_attempts",
      text: `WITH r AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
             id bigint, webhook_id bigint, attempts int, status text, retry_ms double precision,
             code int, excerpt text, duration int, error text, started_at timestamptz, ended_at timestamptz)
         ), upd AS (
           UPDATE webhook_notifications n
              SET status = r.status,
                  attempts = r.attempts,
                  next_attempt_at = CASE WHEN r.status = 'pending' THEN now() + r.retry_ms * interval '1 millisecond' ELSE n.next_attempt_at END,
                  completed_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END,
                  single_attempt = n.single_attempt AND r.status = 'pending'
             FROM r
            WHERE n.id = r.id AND n.status = 'pending'
            RETURNING n.id
         ), log AS (
           INSERT INTO webhook_attempts (notification_id, webhook_id, attempted_at, try_number, status_code, duration_ms, body_excerpt, error)
           SELECT r.id, r.webhook_id, r.started_at, r.attempts, r.code, r.duration, r.excerpt, r.error
             FROM r JOIN upd ON upd.id = r.id
         )
         SELECT r.id, r.retry_ms FROM r JOIN upd ON upd.id = r.id`,
      values: [
        JSON.stringify(
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
        ),
      ],
    });
    await sendNotifyJobs(
      tx,
      boss,
      rows.filter((r) => r.retry_ms !== null).map((r) => ({ notificationId: r.id, delayMs: r.retry_ms ?? 0 })),
    );
    const done = new Set(rows.map((r) => r.id));
    return records.filter((a) => done.has(a.notificationId));
  });
  await updateWebhookRecords(database.pool, recorded);
}

/** Each webhook's LastResponse* members from its latest attempt among `records`, unless a later one is already shown. */
async function updateWebhookRecords(pool: pg.Pool, records: AttemptRecord[]): Promise<void> {
  const latest = new Map<number, AttemptRecord>();
  for (const a of records) {
    const seen = latest.get(a.webhookId);
    if (!seen || seen.endedAt <= a.endedAt) latest.set(a.webhookId, a);
  }
  if (latest.size === 0) return;
  await pool.query({
    name: "mailroom_webhook_last_response",
    text: `UPDATE webhooks w
              SET last_response_code = l.code,
                  last_response_body = l.body,
                  last_response_at = l.ended_at,
                  last_response_try_counter = l.attempts
             FROM jsonb_to_recordset($1::jsonb) AS l(webhook_id bigint, code int, body text, ended_at timestamptz, attempts int)
            WHERE w.id = l.webhook_id AND (w.last_response_at IS NULL OR w.last_response_at <= l.ended_at)`,
    values: [
      JSON.stringify(
        [...latest.values()].map((a) => ({
          webhook_id: a.webhookId,
          code: a.statusCode,
          body: a.body,
          ended_at: a.endedAt.toISOString(),
          attempts: a.attempts,
        })),
      ),
    ],
  });
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
      const { rows } = await tx.client.query<{ id: number }>(
        `UPDATE webhook_notifications SET next_attempt_at = now() + $2 * interval '1 millisecond'
          WHERE id = ANY ($1::bigint[]) AND status = 'pending' RETURNING id`,
        [notificationIds, delayMs],
      );
      await sendNotifyJobs(tx, boss, rows.map((r) => ({ notificationId: r.id, delayMs })));
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
    const { rows } = await tx.client.query<{ id: number }>(
      `WITH s AS (
         SELECT id FROM webhook_notifications
          WHERE status = 'pending' AND next_attempt_at < now() - $1 * interval '1 millisecond'
          ORDER BY next_attempt_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_notifications n SET next_attempt_at = now() FROM s WHERE n.id = s.id RETURNING n.id`,
      [overdueMs, limit],
    );
    await sendNotifyJobs(tx, boss, rows.map((r) => ({ notificationId: r.id, delayMs: 0 })));
    return rows.length;
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
    preparedSql(tx.client),
  );
}

async function completeJobs(tx: Tx, jobIds: string[]): Promise<void> {
  await completeQueueJobs(preparedSql(tx.client), notifyQueue.name, jobIds);
}
