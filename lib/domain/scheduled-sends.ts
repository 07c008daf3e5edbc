import type { MessageSchedule, ScheduledList } from "../contract/scheduled";
import { enqueueMany, type PgBoss } from "../queue/boss";
import { packDeliverEntries, type SizedEntry } from "../queue/deliver-packing";
import { deliverQueue } from "../jobs/deliver";
import type { Database } from "../storage/database";
import { withTransaction } from "../storage/transaction";
import { emailDomain } from "./email-request/addresses";
import { logEvents, nowSeconds, type NewEvent } from "./event-log";

/**
 * Scheduled sends (docs/contract.md §15, docs/adr/0125). A message accepted
 * with a future SendAt is stored `scheduled` with no deliver job. Its fate is
 * decided by one guarded UPDATE of its row: the release (due → `sending`,
 * its deliver jobs inserted in the same transaction) or a cancel (→
 * `cancelled`, every pending recipient failed in the same transaction).
 * Whichever commits first wins; the other's WHERE no longer matches, so a
 * message is never both cancelled and delivered, and a process killed at any
 * point leaves it either still scheduled or released with its jobs.
 */

/** Channel on which a new or earlier SendAt wakes the release loops of every process (docs/adr/0128). */
export const SCHEDULED_CHANNEL = "mailroom_scheduled";

/** Wakes the release loops; in a transaction, at its commit (NOTIFY is transactional). */
export async function announceScheduled(client: { query(text: string): Promise<unknown> }): Promise<void> {
  await client.query(`SELECT pg_notify('${SCHEDULED_CHANNEL}', '')`);
}

/**
 * Milliseconds from now (the database's clock, the one `send_at <= now()`
 * is decided by) until the earliest scheduled message is due; undefined when
 * none is scheduled. Negative or zero: one is due already.
 */
export async function nextReleaseInMs(database: Database): Promise<number | undefined> {
  const { rows } = await database.pool.query<{ ms: number | null }>({
    name: "mailroom_next_scheduled",
    text: `SELECT (extract(epoch FROM min(send_at) - now()) * 1000)::float8 AS ms FROM messages WHERE schedule_status = 'scheduled'`,
  });
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Number(ms);
}

/** The Reason of the `failed` event of each recipient of a cancelled message. */
export const CANCELLED_REASON = "cancelled before sending";

export type ScheduleChange = "ok" | "not-found" | "started";

/** The schedule of one of the account's messages (another account's is not found). */
export async function messageSchedule(database: Database, accountId: string, messageId: string): Promise<MessageSchedule | undefined> {
  const { rows } = await database.pool.query<{ schedule_status: string | null; at: string; pending: boolean }>(
    `SELECT m.schedule_status, extract(epoch FROM COALESCE(m.send_at, m.created_at))::bigint AS at,
            EXISTS (SELECT 1 FROM message_recipients r WHERE r.message_id = m.id AND r.status IN ('queued', 'deferred')) AS pending
       FROM messages m WHERE m.id = $1 AND m.account_id = $2`,
    [messageId, accountId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const Status =
    row.schedule_status === "scheduled" ? "scheduled" : row.schedule_status === "cancelled" ? "cancelled" : row.pending ? "sending" : "sent";
  return { MessageID: messageId, Status, SendAt: Number(row.at) };
}

/** PATCH: a new time for a message still scheduled; `at` undefined = now (released on the loop's next pass). */
export async function rescheduleMessage(database: Database, accountId: string, messageId: string, at: number | undefined): Promise<ScheduleChange> {
  const { rowCount } = await database.pool.query(
    `UPDATE messages SET send_at = to_timestamp($3) WHERE id = $1 AND account_id = $2 AND schedule_status = 'scheduled'`,
    [messageId, accountId, at ?? nowSeconds()],
  );
  if (rowCount === 1) {
    // An earlier time than the loops sleep until: wake them (a later one costs them one pass).
    await announceScheduled(database.pool);
    return "ok";
  }
  return (await exists(database, accountId, messageId)) ? "started" : "not-found";
}

/**
 * Cancels a message still scheduled: every recipient not yet final gets its
 * final `failed` event (through logEvents, so webhooks are notified), in the
 * transaction that marks the message cancelled.
 */
export async function cancelScheduledMessage(database: Database, boss: PgBoss, accountId: string, messageId: string): Promise<ScheduleChange> {
  const changed = await withTransaction(database, async (tx) => {
    const { rowCount } = await tx.client.query(
      `UPDATE messages SET schedule_status = 'cancelled' WHERE id = $1 AND account_id = $2 AND schedule_status = 'scheduled'`,
      [messageId, accountId],
    );
    if (rowCount !== 1) return false;
    const { rows } = await tx.client.query<{ email: string }>(
      `UPDATE message_recipients SET status = 'failed', last_reply = $2, updated_at = now()
        WHERE message_id = $1 AND status IN ('queued', 'deferred') RETURNING id, email`,
      [messageId, CANCELLED_REASON],
    );
    const loggedAt = nowSeconds();
    const events: NewEvent[] = rows.map((r) => ({
      accountId,
      messageId,
      type: "failed",
      recipient: r.email,
      reason: CANCELLED_REASON,
      loggedAt,
      details: { diagnostic: CANCELLED_REASON, cancelled: true, attempts: 0 },
    }));
    await logEvents(tx, boss, events);
    return true;
  });
  if (changed) return "ok";
  return (await exists(database, accountId, messageId)) ? "started" : "not-found";
}

async function exists(database: Database, accountId: string, messageId: string): Promise<boolean> {
  const { rows } = await database.pool.query(`SELECT 1 FROM messages WHERE id = $1 AND account_id = $2`, [messageId, accountId]);
  return rows.length > 0;
}

/** The account's scheduled messages, soonest first (the dashboard's list). */
export async function listScheduledMessages(database: Database, accountId: string, limit = 100): Promise<ScheduledList> {
  const { rows } = await database.pool.query<{ id: string; send_at: string; created_at: string; subject: string; recipients: string[] }>(
    `SELECT m.id, extract(epoch FROM m.send_at)::bigint AS send_at, extract(epoch FROM m.created_at)::bigint AS created_at, m.subject,
            ARRAY(SELECT r.email FROM message_recipients r WHERE r.message_id = m.id ORDER BY r.id) AS recipients
       FROM messages m
      WHERE m.account_id = $1 AND m.schedule_status = 'scheduled'
      ORDER BY m.send_at, m.id
      LIMIT $2`,
    [accountId, limit],
  );
  return {
    Messages: rows.map((r) => ({
      MessageID: r.id,
      SendAt: Number(r.send_at),
      Subject: r.subject,
      Recipients: r.recipients,
      AcceptedAt: Number(r.created_at),
    })),
  };
}

/** Messages released per transaction: a backlog (workers down for a day) is released in steps. */
export const RELEASE_BATCH = 200;

/**
 * Releases due scheduled messages: marks them `sending` and inserts their
 * deliver jobs in one transaction (rows locked with SKIP LOCKED, so the
 * release loops of several worker processes share the work). Returns how
 * many were released; the caller runs it again while it returns a full batch.
 */
export async function releaseDueMessages(database: Database, boss: PgBoss): Promise<number> {
  return withTransaction(database, async (tx) => {
    const { rows } = await tx.client.query<{ id: string; size: number; request_id: string | null; recipients: { id: number; email: string }[] }>({
      name: "mailroom_release_scheduled",
      text: `WITH due AS (
               SELECT id FROM messages WHERE schedule_status = 'scheduled' AND send_at <= now()
                ORDER BY send_at LIMIT ${RELEASE_BATCH} FOR UPDATE SKIP LOCKED
             )
             UPDATE messages m SET schedule_status = 'sending' FROM due WHERE m.id = due.id
             RETURNING m.id, m.size, m.request_id,
               (SELECT COALESCE(json_agg(json_build_object('id', r.id, 'email', r.email) ORDER BY r.id), '[]')
                  FROM message_recipients r WHERE r.message_id = m.id AND r.status IN ('queued', 'deferred')) AS recipients`,
    });
    const entries: SizedEntry[] = [];
    for (const m of rows) {
      const byDomain = new Map<string, number[]>();
      for (const r of m.recipients) {
        const d = emailDomain(r.email);
        byDomain.set(d, [...(byDomain.get(d) ?? []), Number(r.id)]);
      }
      for (const recipientIds of byDomain.values()) {
        entries.push({ entry: { messageId: m.id, recipientIds, ...(m.request_id && { requestId: m.request_id }) }, size: m.size });
      }
    }
    await enqueueMany(boss, deliverQueue, packDeliverEntries(entries).map((payload) => ({ payload })), tx.sql);
    return rows.length;
  });
}
