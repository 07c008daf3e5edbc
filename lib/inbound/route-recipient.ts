import type { AppContext } from "../context";
import { isReportAddress, routeOf, storeInbound, type ReceivedEnvelope, type ReceivedMessage, type RoutedRecipient } from "../domain/inbound/receive";
import { createGroupCommit } from "../storage/group-commit";
import { isRowDataError } from "../storage/sqlstate";
import { parseSignedAddress } from "../tracking/verp";
import { mimeLimitViolation } from "./mime-limits";

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
export type InboundStore = (message: ReceivedMessage) => Promise<string[]>;

export function createInboundStore(ctx: AppContext): InboundStore {
  // A data error of one message's row (isolate) is written again alone, so that it fails only that session's DATA.
  return createGroupCommit((messages: ReceivedMessage[]) => storeInbound(ctx, messages, ctx.config.inbound.retentionMs), {
    maxBatch: 32,
    maxInFlight: 4,
    isolate: isRowDataError,
  });
}

/**
 * Checks the message's MIME structure and commits it for each routed
 * recipient (with its posting jobs) before the 250. Returns the SMTP refusal
 * when the structure is over the limits (nothing stored).
 */
export async function storeRoutedMessage(
  ctx: AppContext,
  store: InboundStore,
  raw: Buffer,
  recipients: RoutedRecipient[],
  envelope: ReceivedEnvelope,
): Promise<{ code: number; message: string } | undefined> {
  const violation = await mimeLimitViolation(raw);
  if (violation) {
    ctx.log.warn({ remote: envelope.remoteIp, violation }, "inbound message refused: MIME structure over the limits");
    return { code: 554, message: `5.6.0 Message refused: ${violation}` };
  }
  const ids = await store({ raw, recipients, envelope });
  ctx.log.info({ ids, to: recipients.map((r) => r.address), size: raw.length }, "inbound message stored");
  return undefined;
}
