import type { Queryable } from "./database";
import { partitionIdent } from "./day-partitions";
import { idBounds } from "./day-partitions";

/** Channel on which a committed fan-out wakes the notification workers (LISTEN/NOTIFY is transactional). */
export const WAKE_CHANNEL = "mailroom_webhooks";

/** An event that notifies, as lib/domain/webhooks/notification-outbox.ts maps it. */
export interface NotificationCandidate {
  event_id: number;
  account_id: string;
  message_id: string;
  /** The stored `webhooks.event` values it matches. */
  names: string[];
  /** Its EventData without Domain, or null when it could not be mapped. */
  payload: unknown;
}

/**
 * Inserts one webhook_notifications row per webhook of the event's account
 * whose event matches (the payload gets the message's sender domain), wakes
 * the workers on commit, and returns the ids of the rows to send. A
 * disabled webhook's row is `held`: kept, not sent, until it is re-enabled
 * or its retention period ends (docs/contract.md §16).
 * A named (prepared) statement: planning this one costs more than running it (~2 ms vs ~0.4 ms).
 */
export async function insertNotifications(q: Queryable, candidates: NotificationCandidate[]): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>({
    name: "mailroom_webhook_fan_out",
    text: `WITH e AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS e(event_id bigint, account_id uuid, message_id uuid, names text[], payload jsonb)
     ), ins AS (
       INSERT INTO webhook_notifications (webhook_id, account_id, event_id, payload, status, completed_at)
       SELECT w.id, w.account_id, e.event_id,
              CASE WHEN jsonb_typeof(e.payload) = 'object' THEN e.payload || jsonb_build_object('Domain', coalesce(m.from_domain, '')) ELSE 'null'::jsonb END,
              CASE WHEN w.status = 'Enabled' THEN 'pending' ELSE 'held' END,
              CASE WHEN w.status = 'Enabled' THEN NULL ELSE now() END
         FROM e
         JOIN webhooks w ON w.account_id = e.account_id AND w.event = ANY (e.names)
         -- The message's domain: messages are partitioned by day (docs/adr/0044) and an event does not carry
         -- its message's day. The days around now (pruned when the statement starts) hold nearly every
         -- message an event is logged for; any other is found by message_from_domain (migration 1003),
         -- whose probe of every day is planned and started only when it is called.
         CROSS JOIN LATERAL (SELECT COALESCE(
           (SELECT m.from_domain FROM messages m
             WHERE m.id = e.message_id AND m.created_at >= now() - interval '2 days' AND m.created_at < now() + interval '1 day' LIMIT 1),
           message_from_domain(e.message_id)) AS from_domain) m
        ORDER BY e.event_id, w.id
       RETURNING id, status
     )
     SELECT id, pg_notify('${WAKE_CHANNEL}', '') FROM ins WHERE status = 'pending'`,
    values: [JSON.stringify(candidates)],
  });
  return rows.map((r) => r.id);
}

/** A claimed notification row with its webhook's URL and its account's signing key. */
export interface ClaimedRow {
  id: number;
  webhook_id: number;
  account_id: string;
  attempts: number;
  payload: Record<string, unknown>;
  url: string;
  webhook_signing_key: string;
  single_attempt: boolean;
}

/**
 * Claims the pending, due rows among `ids` by pushing their next_attempt_at
 * out by `leaseMs` (lib/webhooks/notification-store.ts). Prepared: the
 * dispatch hot path (docs/adr/0320).
 */
export async function claimNotificationRows(q: Queryable, ids: number[], leaseMs: number): Promise<ClaimedRow[]> {
  const { rows } = await q.query<ClaimedRow>({
    name: "mailroom_webhook_claim",
    text: `UPDATE webhook_notifications n
        SET next_attempt_at = now() + $2 * interval '1 millisecond'
       FROM webhooks w
       JOIN accounts a ON a.id = w.account_id
      WHERE n.id = ANY ($1::bigint[]) AND n.id >= $3 AND n.id <= $4 AND w.id = n.webhook_id
        AND n.status = 'pending' AND n.next_attempt_at <= now() + interval '1 second'
      RETURNING n.id, n.webhook_id, n.account_id, n.attempts, n.payload, w.url, a.webhook_signing_key, n.single_attempt`,
    values: [ids, leaseMs, ...idBounds(ids)],
  });
  return rows;
}

/** One attempt's outcome as recordAttemptRows writes it. */
export interface AttemptRow {
  id: number;
  webhook_id: number;
  /** Attempts made so far, this one included. */
  attempts: number;
  status: "delivered" | "failed" | "pending";
  /** For status pending: in how many milliseconds to try again. */
  retry_ms: number | null;
  code: number;
  excerpt: string;
  duration: number;
  error: string | null;
  started_at: string;
  ended_at: string;
}

/**
 * The rows' new status and the attempt log, in one prepared statement; a
 * row no longer pending (or gone) drops out. Returns the rows written, with
 * their retry delay (null when finished).
 */
export async function recordAttemptRows(q: Queryable, attempts: AttemptRow[]): Promise<{ id: number; retry_ms: number | null }[]> {
  const { rows } = await q.query<{ id: number; retry_ms: number | null }>({
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
            WHERE n.id = r.id AND n.id >= $2 AND n.id <= $3 AND n.status = 'pending'
            RETURNING n.id
         ), log AS (
           INSERT INTO webhook_attempts (notification_id, webhook_id, attempted_at, try_number, status_code, duration_ms, body_excerpt, error)
           SELECT r.id, r.webhook_id, r.started_at, r.attempts, r.code, r.duration, r.excerpt, r.error
             FROM r JOIN upd ON upd.id = r.id
         )
         SELECT r.id, r.retry_ms FROM r JOIN upd ON upd.id = r.id`,
    values: [JSON.stringify(attempts), ...idBounds(attempts.map((a) => a.id))],
  });
  return rows;
}

/** A webhook's latest response, for its LastResponse* members. */
export interface LastResponseRow {
  webhook_id: number;
  code: number;
  body: string;
  ended_at: string;
  attempts: number;
}

/** Each webhook's LastResponse* members, unless a later response is already shown. Prepared, one statement. */
export async function writeLastResponses(q: Queryable, responses: LastResponseRow[]): Promise<void> {
  await q.query({
    name: "mailroom_webhook_last_response",
    text: `UPDATE webhooks w
              SET last_response_code = l.code,
                  last_response_body = l.body,
                  last_response_at = l.ended_at,
                  last_response_try_counter = l.attempts
             FROM jsonb_to_recordset($1::jsonb) AS l(webhook_id bigint, code int, body text, ended_at timestamptz, attempts int)
            WHERE w.id = l.webhook_id AND (w.last_response_at IS NULL OR w.last_response_at <= l.ended_at)`,
    values: [JSON.stringify(responses)],
  });
}

/** The pending rows among `ids`, due again after `delayMs`; returns their ids. */
export async function postponeNotifications(q: Queryable, ids: number[], delayMs: number): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>(
    `UPDATE webhook_notifications SET next_attempt_at = now() + $2 * interval '1 millisecond'
          WHERE id = ANY ($1::bigint[]) AND id >= $3 AND id <= $4 AND status = 'pending' RETURNING id`,
    [ids, delayMs, ...idBounds(ids)],
  );
  return rows.map((r) => r.id);
}

/** Up to `limit` pending rows overdue by more than `overdueMs`, made due now (SKIP LOCKED: safe in several processes); their ids. */
export async function takeOverdueNotifications(q: Queryable, overdueMs: number, limit: number): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>(
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
  return rows.map((r) => r.id);
}

/** A disabled webhook's pending notifications are kept, not sent; completed_at starts their retention period. */
export async function holdNotifications(q: Queryable, webhookIds: number[]): Promise<void> {
  await q.query(
    `UPDATE webhook_notifications SET status = 'held', completed_at = now(), single_attempt = false
      WHERE webhook_id = ANY ($1::bigint[]) AND status = 'pending'`,
    [webhookIds],
  );
}

/**
 * One batch of the webhook history's purge (lib/webhooks/retention.ts):
 * up to `batchSize` finished notifications completed longer ago than their
 * account's retention period, with their attempt log (ON DELETE CASCADE).
 * Returns how many went.
 */
export async function deleteFinishedNotifications(q: Queryable, now: Date, batchSize: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM webhook_notifications WHERE id IN (
         SELECT n.id FROM webhook_notifications n JOIN accounts a ON a.id = n.account_id
          WHERE n.status <> 'pending' AND n.completed_at < $1::timestamptz - make_interval(days => a.retention_days)
          LIMIT $2)`,
    [now, batchSize],
  );
  return rowCount ?? 0;
}

/**
 * Whether a day table of webhook_notifications must stay (docs/adr/0042): it
 * holds a notification still pending, or one finished at or after `keepAfter`
 * (the longest retention of any account). Two probes of its partial indexes.
 */
export async function notificationPartitionMustStay(q: Queryable, partition: string, keepAfter: Date): Promise<boolean> {
  const ident = partitionIdent("webhook_notifications", partition);
  const { rows } = await q.query<{ stays: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${ident} WHERE status = 'pending')
         OR EXISTS (SELECT 1 FROM ${ident} WHERE status <> 'pending' AND completed_at >= $1) AS stays`,
    [keepAfter],
  );
  return rows[0]!.stays;
}

/**
 * Deletes the attempts of the notifications whose ids are in [fromId, toId)
 * (a day table about to be dropped: a DROP fires no ON DELETE CASCADE, and its
 * DETACH checks that no attempt still refers to it), 5,000 at a time through
 * the attempts' (notification_id, id) index; returns how many.
 */
export async function deleteAttemptsOfNotificationIds(q: Queryable, fromId: string, toId: string): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await q.query(
      `DELETE FROM webhook_attempts WHERE ctid IN (
         SELECT ctid FROM webhook_attempts WHERE notification_id >= $1::bigint AND notification_id < $2::bigint LIMIT 5000)`,
      [fromId, toId],
    );
    total += rowCount ?? 0;
    if (!rowCount || rowCount < 5000) return total;
  }
}
