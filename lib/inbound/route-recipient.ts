import type { AppContext } from "../context";
import type { BudgetScope } from "../domain/inbound/byte-budgets";
import {
  isReportAddress,
  routeOf,
  storeInbound,
  sweepByteCounters,
  type ReceivedEnvelope,
  type ReceivedMessage,
  type RoutedRecipient,
  type StoreOutcome,
} from "../domain/inbound/receive";
import { createGroupCommit } from "../storage/group-commit";
import { isRowDataError } from "../storage/sqlstate";
import { parseSignedAddress } from "../tracking/verp";
import { DiskSpaceLowError } from "../storage/unavailable";
import { mimeLimitViolation } from "./mime-limits";
import { rateKeyOf, type SpentBudgets } from "./smtp-limits";

/**
 * What the inbound server does with a recipient at RCPT, and with a message
 * for routed recipients at the end of DATA (docs/contract.md §13.2):
 * - a signed VERP or unsubscribe address, or any address at a bounce
 *   domain: the report parsers, as before inbound routes existed;
 * - an address an inbound route matches: stored, then posted;
 * - anything else: refused (550 5.1.1), so the server is never a relay
 *   and never accepts mail it would have to bounce later.
 */

export type RcptDecision = { kind: "report" } | { kind: "route"; recipient: RoutedRecipient };

export async function decideRecipient(ctx: AppContext, secret: string, address: string): Promise<RcptDecision | undefined> {
  if (parseSignedAddress(secret, "bounces", address) !== undefined || parseSignedAddress(secret, "unsubscribe", address) !== undefined) return { kind: "report" };
  const routed = await routeOf(ctx.database, address);
  if (routed) return { kind: "route", recipient: routed };
  if (await isReportAddress(ctx.database, address, ctx.config.delivery.bounceDomain)) return { kind: "report" };
  return undefined;
}

/** The messages of concurrent sessions committed together (one per server: it holds no state beyond its queue). */
export type InboundStore = (message: ReceivedMessage) => Promise<StoreOutcome>;

export function createInboundStore(ctx: AppContext): InboundStore {
  const { retentionMs, budgets } = ctx.config.inbound;
  // A data error of one message's row (isolate) is written again alone, so that it fails only that session's DATA.
  const commit = createGroupCommit((messages: ReceivedMessage[]) => storeInbound(ctx, messages, { retentionMs, budgets }), {
    maxBatch: 32,
    maxInFlight: 4,
    isolate: isRowDataError,
  });
  // The counters of past hours go once an hour, after a store of the new hour (every server does it; a delete of nothing is cheap).
  let sweptHour = Math.floor(Date.now() / 3_600_000);
  return async (message) => {
    const outcome = await commit(message);
    const hour = Math.floor(Date.now() / 3_600_000);
    if (hour !== sweptHour) {
      sweptHour = hour;
      sweepByteCounters(ctx.database, Date.now()).catch((err: unknown) => ctx.log.warn({ err }, "inbound byte counters of past hours could not be deleted"));
    }
    return outcome;
  };
}

/** Whether the data directory is below MAILROOM_DISK_MIN_FREE (the guard of POST /email and SMTP submission). */
export function diskTooFull(ctx: AppContext): boolean {
  try {
    ctx.disk.assertAccepting();
    return false;
  } catch (err) {
    if (err instanceof DiskSpaceLowError) return true;
    throw err;
  }
}

export const DISK_FULL_REFUSAL = { code: 452, message: "4.3.1 Mail system full, try again later" };

/** The refusal of a transaction past a byte budget (docs/adr/0807): temporary, the sender tries again later. */
export function budgetRefusal(scope: BudgetScope): { code: number; message: string } {
  return scope === "address"
    ? { code: 452, message: "4.3.1 Too much mail received from your address this hour, try again later" }
    : { code: 452, message: "4.3.1 Too much mail received for this recipient this hour, try again later" };
}

/**
 * Checks the disk, the message's MIME structure, and commits it (one row per
 * route, one raw copy, with its posting jobs) within the byte budgets before
 * the 250. Returns the SMTP refusal when it is not stored: the disk below
 * its reserve, the structure over the limits, or a budget spent (marked in
 * `spent` for the next MAIL or RCPT).
 */
export async function storeRoutedMessage(
  ctx: AppContext,
  store: InboundStore,
  spent: SpentBudgets,
  raw: Buffer,
  recipients: RoutedRecipient[],
  envelope: ReceivedEnvelope,
): Promise<{ code: number; message: string } | undefined> {
  if (diskTooFull(ctx)) return DISK_FULL_REFUSAL;
  const violation = await mimeLimitViolation(raw);
  if (violation) {
    ctx.log.warn({ remote: envelope.remoteIp, violation }, "inbound message refused: MIME structure over the limits");
    return { code: 554, message: `5.6.0 Message refused: ${violation}` };
  }
  const addressKey = rateKeyOf(envelope.remoteIp);
  const outcome = await store({ raw, recipients, envelope, addressKey });
  if ("refused" in outcome) {
    const { scope, key } = outcome.refused;
    ctx.log.warn({ remote: envelope.remoteIp, budget: scope, key, size: raw.length }, "inbound message refused: byte budget of the hour spent");
    spent.note(scope, key);
    return budgetRefusal(scope);
  }
  ctx.log.info({ ids: outcome.ids, to: recipients.map((r) => r.address), size: raw.length }, "inbound message stored");
  return undefined;
}
