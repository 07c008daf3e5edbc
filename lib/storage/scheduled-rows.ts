import type { Queryable } from "./database";
import type { Tx } from "./transaction";

/**
 * The SQL of scheduled sends (docs/adr/0125): messages.send_at and
 * messages.schedule_status, and the recipients of a cancelled message.
 * lib/domain/sending/scheduled-sends.ts decides when a message is released or
 * cancelled; this is only the SQL.
 */

/** Channel on which a new or earlier SendAt wakes the release loops of every process (docs/adr/0128). */
export const SCHEDULED_CHANNEL = "mailroom_scheduled";

/** Messages released per transaction: a backlog (workers down for a day) is released in steps. */
export const RELEASE_BATCH = 200;

/** Wakes the release loops; in a transaction, at its commit (NOTIFY is transactional). */
export async function notifyScheduled(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify('${SCHEDULED_CHANNEL}', '')`);
}

/** Milliseconds (the database's clock) until the earliest scheduled message is due; null when none is scheduled. */
/** A paused account's scheduled messages wait (docs/adr/0136): released once an owner resumes it. */
const NOT_PAUSED = "account_id NOT IN (SELECT id FROM accounts WHERE sending_paused_at IS NOT NULL)";

export async function selectNextScheduledMs(q: Queryable): Promise<number | null | undefined> {
  const { rows } = await q.query<{ ms: number | null }>({
    name: "mailroom_next_scheduled",
    text: `SELECT (extract(epoch FROM min(send_at) - now()) * 1000)::float8 AS ms FROM messages WHERE schedule_status = 'scheduled' AND ${NOT_PAUSED}`,
  });
  return rows[0]?.ms;
}

export interface MessageScheduleRow {
  schedule_status: string | null;
  /** Unix seconds: SendAt, else the acceptance time. */
  at: string;
  /** Whether a recipient still waits for delivery. */
  pending: boolean;
}

/** The schedule columns of one of the account's messages. */
export async function selectMessageSchedule(q: Queryable, accountId: string, messageId: string): Promise<MessageScheduleRow | undefined> {
  const { rows } = await q.query<MessageScheduleRow>(
    `SELECT m.schedule_status, extract(epoch FROM COALESCE(m.send_at, m.created_at))::bigint AS at,
            EXISTS (SELECT 1 FROM message_recipients r WHERE r.message_id = m.id AND r.status IN ('queued', 'deferred')) AS pending
       FROM messages m WHERE m.id = $1 AND m.account_id = $2`,
    [messageId, accountId],
  );
  return rows[0];
}

/** A new SendAt (Unix seconds) for a message still scheduled; false when it is not (any more). */
export async function updateSendAt(q: Queryable, accountId: string, messageId: string, at: number): Promise<boolean> {
  const { rowCount } = await q.query(`UPDATE messages SET send_at = to_timestamp($3) WHERE id = $1 AND account_id = $2 AND schedule_status = 'scheduled'`, [
    messageId,
    accountId,
    at,
  ]);
  return rowCount === 1;
}

/** Marks a message still scheduled `cancelled`; false when it is not (any more). */
export async function markScheduledCancelled(tx: Tx, accountId: string, messageId: string): Promise<boolean> {
  const { rowCount } = await tx.query(`UPDATE messages SET schedule_status = 'cancelled' WHERE id = $1 AND account_id = $2 AND schedule_status = 'scheduled'`, [
    messageId,
    accountId,
  ]);
  return rowCount === 1;
}

/** Fails every recipient of the message not yet final, with `reason` as its last reply; returns them. */
export async function failPendingRecipients(tx: Tx, messageId: string, reason: string): Promise<{ id: number; email: string }[]> {
  const { rows } = await tx.query<{ id: number; email: string }>(
    `UPDATE message_recipients SET status = 'failed', last_reply = $2, updated_at = now()
        WHERE message_id = $1 AND status IN ('queued', 'deferred') RETURNING id, email`,
    [messageId, reason],
  );
  return rows;
}

/** The From domain of one of the account's messages, as it was stored; undefined when the account has no such message. */
export async function selectMessageFromDomain(q: Queryable, accountId: string, messageId: string): Promise<string | undefined> {
  const { rows } = await q.query<{ from_domain: string }>(`SELECT from_domain FROM messages WHERE id = $1 AND account_id = $2`, [messageId, accountId]);
  return rows[0]?.from_domain;
}

/** Whether the account has the message. */
export async function messageExists(q: Queryable, accountId: string, messageId: string): Promise<boolean> {
  const { rows } = await q.query(`SELECT 1 FROM messages WHERE id = $1 AND account_id = $2`, [messageId, accountId]);
  return rows.length > 0;
}

export interface ScheduledMessageRow {
  id: string;
  /** Unix seconds. */
  send_at: string;
  created_at: string;
  subject: string;
  recipients: string[];
}

/** The account's scheduled messages, soonest first. */
export async function selectScheduledMessages(q: Queryable, accountId: string, limit: number): Promise<ScheduledMessageRow[]> {
  const { rows } = await q.query<ScheduledMessageRow>(
    `SELECT m.id, extract(epoch FROM m.send_at)::bigint AS send_at, extract(epoch FROM m.created_at)::bigint AS created_at, m.subject,
            ARRAY(SELECT r.email FROM message_recipients r WHERE r.message_id = m.id ORDER BY r.id) AS recipients
       FROM messages m
      WHERE m.account_id = $1 AND m.schedule_status = 'scheduled'
      ORDER BY m.send_at, m.id
      LIMIT $2`,
    [accountId, limit],
  );
  return rows;
}

export interface ReleasedMessageRow {
  id: string;
  size: number;
  request_id: string | null;
  account_id: string;
  /** Its recipients still waiting for delivery. */
  recipients: { id: number; email: string }[];
}

/**
 * Marks up to RELEASE_BATCH due scheduled messages `sending` (rows locked
 * with SKIP LOCKED, so several release loops share the work) and returns them.
 */
export async function releaseDueRows(tx: Tx): Promise<ReleasedMessageRow[]> {
  const { rows } = await tx.query<ReleasedMessageRow>({
    name: "mailroom_release_scheduled",
    text: `WITH due AS (
               SELECT id FROM messages WHERE schedule_status = 'scheduled' AND send_at <= now() AND ${NOT_PAUSED}
                ORDER BY send_at LIMIT ${RELEASE_BATCH} FOR UPDATE SKIP LOCKED
             )
             UPDATE messages m SET schedule_status = 'sending' FROM due WHERE m.id = due.id
             RETURNING m.id, m.size, m.request_id, m.account_id,
               (SELECT COALESCE(json_agg(json_build_object('id', r.id, 'email', r.email) ORDER BY r.id), '[]')
                  FROM message_recipients r WHERE r.message_id = m.id AND r.status IN ('queued', 'deferred')) AS recipients`,
  });
  return rows;
}
