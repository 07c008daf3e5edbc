import type { MessageSchedule, ScheduledList } from "../../contract/scheduled";
import { enqueueMany, type PgBoss } from "../../queue/boss";
import { packDeliverJobsByAccount, type SizedEntry } from "../../queue/deliver-packing";
import { deliverQueue } from "../../jobs/deliver";
import type { Database, Queryable } from "../../storage/database";
import {
  failPendingRecipients,
  markScheduledCancelled,
  messageExists,
  notifyScheduled,
  releaseDueRows,
  selectMessageFromDomain,
  selectMessageSchedule,
  selectNextScheduledMs,
  selectScheduledMessages,
  updateSendAt,
} from "../../storage/scheduled-rows";
import { wakeDeliverLoops } from "../../storage/delivery-rows";
import { withTransaction } from "../../storage/transaction";
import { emailDomain } from "./email-request/addresses";
import { logEvents, nowSeconds, type NewEvent } from "../events/event-log";
import { keyMaySendFrom } from "../accounts/key-scope";

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

/** Wakes the release loops; in a transaction, at its commit (NOTIFY is transactional). */
export async function announceScheduled(q: Queryable): Promise<void> {
  await notifyScheduled(q);
}

/**
 * Milliseconds from now (the database's clock, the one `send_at <= now()`
 * is decided by) until the earliest scheduled message is due; undefined when
 * none is scheduled. Negative or zero: one is due already.
 */
export async function nextReleaseInMs(q: Queryable): Promise<number | undefined> {
  const ms = await selectNextScheduledMs(q);
  return ms === null || ms === undefined ? undefined : Number(ms);
}

/** The Reason of the `failed` event of each recipient of a cancelled message. */
export const CANCELLED_REASON = "cancelled before sending";

export type ScheduleChange = "ok" | "not-found" | "started";

/** The schedule of one of the account's messages (another account's is not found). */
export async function messageSchedule(q: Queryable, accountId: string, messageId: string): Promise<MessageSchedule | undefined> {
  const row = await selectMessageSchedule(q, accountId, messageId);
  if (!row) return undefined;
  const Status =
    row.schedule_status === "scheduled" ? "scheduled" : row.schedule_status === "cancelled" ? "cancelled" : row.pending ? "sending" : "sent";
  return { MessageID: messageId, Status, SendAt: Number(row.at) };
}

/** The key that changes a schedule: its account, and the sender domains it is limited to (null: none). */
export interface ScheduleChanger {
  accountId: string;
  senderDomains: readonly string[] | null;
}

/**
 * Whether the key may change the message (docs/contract.md §17.3): a key
 * limited to sender domains only those From one of its domains; any other
 * is answered as another account's message is (not found). A message's
 * From never changes, so the check cannot race the guarded update.
 */
async function keyReaches(q: Queryable, key: ScheduleChanger, messageId: string): Promise<boolean> {
  if (key.senderDomains === null) return true;
  const fromDomain = await selectMessageFromDomain(q, key.accountId, messageId);
  return fromDomain !== undefined && keyMaySendFrom(key.senderDomains, fromDomain);
}

/** PATCH: a new time for a message still scheduled; `at` undefined = now (released on the loop's next pass). */
export async function rescheduleMessage(q: Queryable, key: ScheduleChanger, messageId: string, at: number | undefined): Promise<ScheduleChange> {
  const { accountId } = key;
  if (!(await keyReaches(q, key, messageId))) return "not-found";
  if (await updateSendAt(q, accountId, messageId, at ?? nowSeconds())) {
    // An earlier time than the loops sleep until: wake them (a later one costs them one pass).
    await announceScheduled(q);
    return "ok";
  }
  return (await messageExists(q, accountId, messageId)) ? "started" : "not-found";
}

/**
 * Cancels a message still scheduled: every recipient not yet final gets its
 * final `failed` event (through logEvents, so webhooks are notified), in the
 * transaction that marks the message cancelled.
 */
export async function cancelScheduledMessage(database: Database, boss: PgBoss, key: ScheduleChanger, messageId: string): Promise<ScheduleChange> {
  const { accountId } = key;
  if (!(await keyReaches(database, key, messageId))) return "not-found";
  const changed = await withTransaction(database, async (tx) => {
    if (!(await markScheduledCancelled(tx, accountId, messageId))) return false;
    const rows = await failPendingRecipients(tx, messageId, CANCELLED_REASON);
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
  return (await messageExists(database, accountId, messageId)) ? "started" : "not-found";
}

/** The account's scheduled messages, soonest first (the dashboard's list). */
export async function listScheduledMessages(q: Queryable, accountId: string, limit = 100): Promise<ScheduledList> {
  const rows = await selectScheduledMessages(q, accountId, limit);
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

/**
 * Releases due scheduled messages: marks them `sending` and inserts their
 * deliver jobs in one transaction (rows locked with SKIP LOCKED, so the
 * release loops of several worker processes share the work). Returns how
 * many were released; the caller runs it again while it returns a full batch.
 */
export async function releaseDueMessages(database: Database, boss: PgBoss): Promise<number> {
  return withTransaction(database, async (tx) => {
    const rows = await releaseDueRows(tx);
    const entries: (SizedEntry & { accountId: string })[] = [];
    for (const m of rows) {
      const byDomain = new Map<string, number[]>();
      for (const r of m.recipients) {
        const d = emailDomain(r.email);
        byDomain.set(d, [...(byDomain.get(d) ?? []), Number(r.id)]);
      }
      for (const recipientIds of byDomain.values()) {
        entries.push({ entry: { messageId: m.id, recipientIds, ...(m.request_id && { requestId: m.request_id }) }, size: m.size, accountId: m.account_id });
      }
    }
    await enqueueMany(boss, deliverQueue, packDeliverJobsByAccount(entries), tx.sql);
    // No recipient is inserted here, so the trigger that wakes the deliver loops does not fire: announce the jobs.
    if (rows.length > 0) await wakeDeliverLoops(tx);
    return rows.length;
  });
}
