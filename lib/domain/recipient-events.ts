import { createHash } from "node:crypto";
import type { PgBoss } from "../queue/boss";
import type { Database } from "../storage/database";
import { withTransaction } from "../storage/transaction";
import { logEvents, type LoggedEvent } from "./event-log";
import type { Geolocation } from "./geolocation";
import { addSuppression } from "./suppressions";

/**
 * Events that happen to one recipient of a sent message after delivery:
 * opens, clicks and unsubscribes (tracking routes), complaints (ARF) and
 * late bounces (DSN). Each is logged with logEvents (so webhooks fan out in
 * the same transaction); unsubscribes, complaints and 5.1.x bounces also
 * suppress the address.
 */

export interface RecipientRef {
  id: number;
  messageId: string;
  accountId: string;
  email: string;
  status: string;
}

interface Deps {
  database: Database;
  boss: PgBoss;
}

const SELECT = `SELECT id, message_id AS "messageId", account_id AS "accountId", email, status FROM message_recipients`;

export async function findRecipient(database: Database, id: number): Promise<RecipientRef | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  const { rows } = await database.pool.query<RecipientRef>(`${SELECT} WHERE id = $1`, [id]);
  return rows[0];
}

export interface EngagementInput {
  type: "opened" | "clicked" | "unsubscribed" | "complained";
  ip?: string;
  geo?: Geolocation;
  url?: string;
  reason?: string;
  details?: Record<string, unknown>;
}

/** Repeated opens of a copy, or clicks of one of its links, within this many seconds of the last logged one only count (ADR 0306). */
export const ENGAGEMENT_WINDOW_SECONDS = 10;

/**
 * One load of the pixel or a link, counted atomically in PostgreSQL (so it
 * holds across app processes): true when it opens a new window and is to be
 * logged. The row stays locked until the caller's transaction ends, so a
 * concurrent load waits and then sees the window this one opened.
 */
const COUNT_ENGAGEMENT = `
  INSERT INTO engagement_windows AS w (recipient_id, kind, link_key, window_start, hits, logged)
  VALUES ($1, $2, $3, now(), 1, 1)
  ON CONFLICT (recipient_id, kind, link_key) DO UPDATE
     SET hits = w.hits + 1,
         logged = w.logged + CASE WHEN w.window_start <= now() - make_interval(secs => $4) THEN 1 ELSE 0 END,
         window_start = CASE WHEN w.window_start <= now() - make_interval(secs => $4) THEN now() ELSE w.window_start END
  RETURNING w.window_start = now() AS fresh`;

/**
 * Logs an engagement event. Opens (per recipient) and clicks (per recipient
 * and link) are logged once per ENGAGEMENT_WINDOW_SECONDS: repeats within the
 * window are counted in engagement_windows.hits but log no event and fire no
 * webhook (returns undefined). Unsubscribes and complaints are logged once
 * per recipient (undefined for a repeat) and add the address to the
 * account's suppression list.
 */
export async function recordEngagement(deps: Deps, recipient: RecipientRef, input: EngagementInput): Promise<LoggedEvent | undefined> {
  return withTransaction(deps.database, async (tx) => {
    if (input.type === "opened" || input.type === "clicked") {
      const linkKey = input.type === "clicked" ? createHash("md5").update(input.url ?? "").digest("hex") : "";
      const { rows } = await tx.client.query<{ fresh: boolean }>({
        name: "mailroom_count_engagement",
        text: COUNT_ENGAGEMENT,
        values: [recipient.id, input.type, linkKey, ENGAGEMENT_WINDOW_SECONDS],
      });
      if (!rows[0]?.fresh) return undefined;
    }
    if (input.type === "unsubscribed" || input.type === "complained") {
      // Serialise repeats for this recipient (one-click POST retried, duplicate ARF).
      await tx.client.query("SELECT id FROM message_recipients WHERE id = $1 FOR UPDATE", [recipient.id]);
      const { rowCount } = await tx.client.query(
        "SELECT 1 FROM events WHERE account_id = $1 AND message_id = $2 AND type = $3 AND recipient = $4 LIMIT 1",
        [recipient.accountId, recipient.messageId, input.type, recipient.email],
      );
      if (rowCount) return undefined;
      await addSuppression(tx, {
        accountId: recipient.accountId,
        email: recipient.email,
        reason: input.type === "unsubscribed" ? "unsubscribe" : "complaint",
        detail: input.reason ?? "",
        messageId: recipient.messageId,
      });
    }
    const [event] = await logEvents(tx, deps.boss, [
      {
        accountId: recipient.accountId,
        messageId: recipient.messageId,
        type: input.type,
        recipient: recipient.email,
        reason: input.reason ?? defaultReason(input.type),
        ip: input.ip ?? "",
        geo: input.geo ?? { city: "", region: "", country: "" },
        url: input.url,
        details: input.details,
      },
    ]);
    return event;
  });
}

function defaultReason(type: EngagementInput["type"]): string {
  switch (type) {
    case "opened":
      return "The recipient opened the message";
    case "clicked":
      return "The recipient followed a link";
    case "unsubscribed":
      return "The recipient unsubscribed";
    case "complained":
      return "The recipient marked the message as spam";
  }
}

export interface LateBounce {
  /** Enhanced status from the DSN (5.1.1). */
  status: string;
  diagnostic: string;
  remoteMta?: string;
  source: "dsn";
}

/**
 * A bounce that arrived after the message was handed over (a DSN): the
 * recipient becomes `failed` (once) and 5.1.x bounces suppress the address.
 */
export async function recordLateBounce(deps: Deps, recipient: RecipientRef, bounce: LateBounce): Promise<LoggedEvent | undefined> {
  return withTransaction(deps.database, async (tx) => {
    const { rowCount } = await tx.client.query(
      `UPDATE message_recipients SET status = 'failed', last_reply = $2, updated_at = now(), next_attempt_at = NULL
       WHERE id = $1 AND status NOT IN ('failed', 'rejected', 'suppressed')`,
      [recipient.id, bounce.diagnostic || bounce.status],
    );
    if (!rowCount) return undefined;
    const smtpCode = /^([245]\d\d)\b/.exec(bounce.diagnostic)?.[1];
    const isHard = bounce.status.startsWith("5.1.");
    if (isHard) {
      await addSuppression(tx, {
        accountId: recipient.accountId,
        email: recipient.email,
        reason: "hard-bounce",
        detail: bounce.diagnostic || bounce.status,
        messageId: recipient.messageId,
      });
    }
    const [event] = await logEvents(tx, deps.boss, [
      {
        accountId: recipient.accountId,
        messageId: recipient.messageId,
        type: "failed",
        recipient: recipient.email,
        reason: bounce.diagnostic || `Bounced with status ${bounce.status}`,
        details: {
          smtpCode: smtpCode ? Number(smtpCode) : null,
          enhancedCode: bounce.status,
          diagnostic: bounce.diagnostic,
          bounceType: bounce.status.startsWith("4.") ? "soft" : "hard",
          remoteMta: bounce.remoteMta ?? "",
          source: bounce.source,
        },
      },
    ]);
    return event;
  });
}
