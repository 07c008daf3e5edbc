import { createHash } from "node:crypto";
import type { PgBoss } from "../../queue/boss";
import type { Database, Queryable } from "../../storage/database";
import { hasRecipientEvent } from "../../storage/event-rows";
import { countEngagement, failRecipient, lockRecipient, selectRecipient, type RecipientRefRow } from "../../storage/recipient-rows";
import { withTransaction } from "../../storage/transaction";
import { logEvents, type LoggedEvent } from "./event-log";
import type { Geolocation } from "../tracking/geolocation";
import { addSuppression } from "../accounts/suppressions";

/**
 * Events that happen to one recipient of a sent message after delivery:
 * opens, clicks and unsubscribes (tracking routes), complaints (ARF) and
 * late bounces (DSN). Each is logged with logEvents (so webhooks fan out in
 * the same transaction); unsubscribes, complaints and 5.1.x bounces also
 * suppress the address.
 */

export type RecipientRef = RecipientRefRow;

interface Deps {
  database: Database;
  boss: PgBoss;
}

export async function findRecipient(q: Queryable, id: number): Promise<RecipientRef | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  return selectRecipient(q, id);
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
      // Counted in PostgreSQL (across app processes); the window's row stays locked until commit.
      if (!(await countEngagement(tx, recipient.id, input.type, linkKey, ENGAGEMENT_WINDOW_SECONDS))) return undefined;
    }
    if (input.type === "unsubscribed" || input.type === "complained") {
      // Serialise repeats for this recipient (one-click POST retried, duplicate ARF).
      await lockRecipient(tx, recipient.id);
      if (await hasRecipientEvent(tx, recipient.accountId, recipient.messageId, input.type, recipient.email)) return undefined;
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
    if (!(await failRecipient(tx, recipient.id, bounce.diagnostic || bounce.status))) return undefined;
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
