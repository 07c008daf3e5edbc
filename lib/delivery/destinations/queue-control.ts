import type { Logger } from "../../logger";
import type { AppMetrics } from "../../metrics";
import type { PgBoss } from "../../queue/boss";
import type { Database } from "../../storage/database";
import { selectThrottlesInForce } from "../../storage/destination-throttle-rows";
import { wakeDeliverLoops } from "../../storage/delivery-rows";
import {
  makeDeferredDueNow,
  selectAttemptsLastMinuteByDomain,
  selectPendingByDomain,
  selectPendingRecipientsOf,
  type PendingRecipientRow,
} from "../../storage/destination-queue-rows";
import type { Classification } from "../classify";
import { createRoundWriter, recordRound, type RoundResult } from "../record-outcomes";
import { listHolds, normaliseHoldKey, placeHold, releaseHolds, type Hold } from "./holds";
import { queueRows, type QueueRow } from "./queue-view";

/**
 * Queue control (docs/cli.md, "Delivery queues"; docs/adr/0204): the one implementation
 * behind `mailroom queue` and the dashboard's Queues page. Suspending and
 * resuming are holds (holds.ts); retry-now makes deferred mail due now;
 * bounce fails pending mail through record-outcomes.ts, as every delivery
 * round's outcome is written, so that each recipient gets one final `failed`
 * event and its notification (a worker finishing the same recipient at the
 * same moment is met by the round's guarded update).
 */

export interface QueueControlContext {
  database: Database;
  boss: PgBoss;
  log: Logger;
  metrics: AppMetrics;
  config: { delivery: { mode: "sandbox" | "relay" | "mx"; retryScheduleMs: number[]; maxAgeMs: number } };
}

/** Most domains `list` shows (most pending first). */
const LIST_LIMIT = 500;
const BOUNCE_BATCH = 500;

export class QueueControlError extends Error {}

function relayMode(ctx: Pick<QueueControlContext, "config">): boolean {
  return ctx.config.delivery.mode !== "mx";
}

export function requireKey(raw: string): string {
  const key = normaliseHoldKey(raw);
  if (!key) throw new QueueControlError(`"${raw.slice(0, 100)}" is not a recipient domain, a provider name or relay`);
  return key;
}

/** Each destination with pending mail, a hold or a throttle: counts, state, holds, throttles, last replies, attempts in the last minute. */
export async function listQueues(ctx: Pick<QueueControlContext, "database" | "config">): Promise<QueueRow[]> {
  const [pending, attempts, holds, throttles] = await Promise.all([
    selectPendingByDomain(ctx.database, LIST_LIMIT),
    selectAttemptsLastMinuteByDomain(ctx.database),
    listHolds(ctx.database),
    selectThrottlesInForce(ctx.database, LIST_LIMIT),
  ]);
  const perMinute = new Map(attempts.map((a) => [a.domain, a.attempts]));
  return queueRows(
    pending.map((p) => ({
      domain: p.domain,
      queued: p.queued,
      deferred: p.deferred,
      inFlight: p.in_flight,
      accounts: p.accounts,
      nextAttemptAt: p.next_attempt_at,
      oldestAt: p.oldest_at,
      lastReplies: p.last_replies ?? [],
      attemptsLastMinute: perMinute.get(p.domain) ?? 0,
    })),
    holds,
    relayMode(ctx),
    throttles,
  );
}

export interface SuspendRequest {
  key: string;
  accountId?: string;
  /** How long, in ms; absent: until resumed. */
  forMs?: number;
  reason?: string;
  placedBy: string;
}

/** An operator's hold on the key (an automatic one on it is replaced). */
export async function suspendDestination(ctx: Pick<QueueControlContext, "database">, req: SuspendRequest): Promise<Hold> {
  const key = requireKey(req.key);
  const until = req.forMs !== undefined ? new Date(Date.now() + req.forMs) : null;
  return placeHold(ctx.database, { key, accountId: req.accountId ?? null, until, reason: req.reason ?? "", source: "operator", placedBy: req.placedBy });
}

/** Releases the key's holds (of that account only, when given); the holds released. The held mail's retries are made due now. */
export async function resumeDestination(ctx: Pick<QueueControlContext, "database" | "config">, key: string, accountId?: string): Promise<Hold[]> {
  const normalised = requireKey(key);
  const released = await releaseHolds(ctx.database, normalised, accountId);
  // A domain's (or, in relay mode, the relay's) held mail is tried at once; a provider's waits for its next try, set by the hold.
  if (released.length > 0 && selectsDomains(ctx, normalised)) await retryNow(ctx, normalised, accountId);
  return released;
}

function selectsDomains(ctx: Pick<QueueControlContext, "config">, key: string): boolean {
  return key === "relay" ? relayMode(ctx) : key.includes(".") && !key.includes(",");
}

/**
 * The recipient domain whose pending mail a key selects: the domain itself,
 * or every domain for `relay` in relay mode. A provider or MX host set names
 * domains only a lookup can tell: refused, say which domain.
 */
function domainOfKey(ctx: Pick<QueueControlContext, "config">, key: string): string | null {
  if (key === "relay") {
    if (relayMode(ctx)) return null;
    throw new QueueControlError("relay: this install delivers to MX hosts (MAILROOM_DELIVERY=mx); name a recipient domain");
  }
  if (!selectsDomains(ctx, key)) {
    throw new QueueControlError(`${key}: name a recipient domain (a provider or MX host set is resumed or suspended as a whole, its mail retried or bounced per domain)`);
  }
  return key;
}

/** Makes the deferred recipients of the domain (every domain for `relay` in relay mode) due now; how many. */
export async function retryNow(ctx: Pick<QueueControlContext, "database" | "config">, key: string, accountId?: string): Promise<number> {
  const domain = domainOfKey(ctx, requireKey(key));
  const n = await makeDeferredDueNow(ctx.database, domain, accountId ?? null);
  if (n > 0) await wakeDeliverLoops(ctx.database);
  return n;
}

function bouncedClassification(reason: string): Classification {
  const diagnostic = `Bounced by the operator${reason ? `: ${reason}` : ""}`;
  return { outcome: "failed", smtpCode: null, enhancedCode: "5.0.0", diagnostic, bounceType: "soft", suppress: false };
}

/**
 * Fails every pending (queued or deferred) recipient of the domain (every
 * domain for `relay` in relay mode), of that account when given, with the
 * reason: one final `failed` event each, and its notification. Returns how many were failed.
 */
export async function bounceDestination(ctx: QueueControlContext, key: string, reason: string, accountId?: string): Promise<number> {
  const domain = domainOfKey(ctx, requireKey(key));
  const policy = { scheduleMs: ctx.config.delivery.retryScheduleMs, maxAgeMs: ctx.config.delivery.maxAgeMs };
  const recorder = { metrics: ctx.metrics, log: ctx.log, roundWriter: createRoundWriter(ctx.database, ctx.boss) };
  const classification = bouncedClassification(reason.slice(0, 500));
  let total = 0;
  let afterId = "0";
  for (;;) {
    const rows = await selectPendingRecipientsOf(ctx.database, { domain, accountId: accountId ?? null, afterId, limit: BOUNCE_BATCH });
    if (rows.length === 0) break;
    afterId = rows[rows.length - 1]!.id;
    const byMessage = new Map<string, PendingRecipientRow[]>();
    for (const row of rows) byMessage.set(row.message_id, [...(byMessage.get(row.message_id) ?? []), row]);
    for (const [messageId, list] of byMessage) {
      const first = list[0]!;
      const results: RoundResult[] = list.map((r) => ({ recipientId: Number(r.id), email: r.email, attempts: r.attempts, classification, mxHost: "", durationMs: 0 }));
      await recordRound(recorder, policy, { messageId, accountId: first.account_id, acceptedAt: first.accepted_at, transport: "operator" }, results);
      total += list.length;
    }
    if (rows.length < BOUNCE_BATCH) break;
  }
  ctx.log.warn({ key, accountId, recipients: total, reason }, "queue bounced by the operator");
  return total;
}
