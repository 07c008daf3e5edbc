import type { AppContext } from "../context";
import { parseSignedAddress } from "../tracking/verp";
import { findRecipient, recordEngagement, recordLateBounce } from "../domain/events/recipient-events";
import { handleDmarcReport, isDmarcAddress } from "./dmarc-report";
import { parseReport, type ParsedReport } from "./report-parser";

/**
 * What the inbound SMTP server does with one received message:
 * - to a signed `unsubscribe+…` address (List-Unsubscribe mailto) → unsubscribed;
 * - a DSN (report-type=delivery-status) → `failed` for the copy it is about;
 * - an ARF report (report-type=feedback-report) → `complained`;
 * - to `dmarc@<bounce domain>`: a DMARC aggregate report, stored (lib/inbound/dmarc-report.ts).
 *
 * Attribution is by signed tokens only (docs/adr/0306): the VERP address the
 * report was sent to, the ARF's Original-Mail-From, or, in the returned
 * original's headers, its Return-Path (VERP) or List-Unsubscribe mailto
 * address. Each names one recipient row (one copy). A report is ignored,
 * with a warning, when it carries no token (a Message-ID alone attributes
 * nothing: every recipient of a message can quote it), when its tokens name
 * different copies, or when it names a recipient other than the token's
 * (a DSN's Final-/Original-Recipient, an ARF's Original-Rcpt-To): holding one
 * copy must not let anyone fail or suppress another recipient.
 */

export type InboundOutcome =
  | { kind: "unsubscribed" | "complained" | "bounced"; recipients: string[] }
  | { kind: "dmarc"; domain: string; records: number }
  | { kind: "dropped"; why: string }
  /** Refused with a 554: the message is over a bound of what is read (a DMARC report's). */
  | { kind: "refused"; why: string };

export interface InboundEnvelope {
  from: string;
  to: string[];
}

export type TokenSource = "envelope" | "original-mail-from" | "return-path" | "list-unsubscribe";

/** The mailto addresses of a List-Unsubscribe value (`<https://…>, <mailto:a@b?subject=x>`). Linear: splits, no regex. */
export function listUnsubscribeMailtos(value: string): string[] {
  const out: string[] = [];
  for (const part of value.slice(0, 4096).split(",")) {
    const t = part.trim().replace(/^</, "").replace(/>$/, "");
    if (!t.toLowerCase().startsWith("mailto:")) continue;
    const address = t.slice("mailto:".length).split("?")[0]!;
    try {
      out.push(decodeURIComponent(address));
    } catch {
      out.push(address);
    }
  }
  return out;
}

/** The recipient ids named by the report's signed tokens, with where each was found (pure). */
export function signedRecipientIds(secret: string, report: ParsedReport, envelopeTo: string[]): { id: number; source: TokenSource }[] {
  const found: { id: number; source: TokenSource }[] = [];
  const add = (purpose: "bounces" | "unsubscribe", address: string, source: TokenSource) => {
    const id = address ? parseSignedAddress(secret, purpose, address) : undefined;
    if (id !== undefined) found.push({ id, source });
  };
  for (const rcpt of envelopeTo) add("bounces", rcpt, "envelope");
  add("bounces", report.feedback?.originalMailFrom ?? "", "original-mail-from");
  add("bounces", report.original.returnPath, "return-path");
  for (const mailto of listUnsubscribeMailtos(report.original.listUnsubscribe)) add("unsubscribe", mailto, "list-unsubscribe");
  return found;
}

const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export async function handleInboundMessage(ctx: AppContext, secret: string, raw: Buffer, envelope: InboundEnvelope): Promise<InboundOutcome> {
  const deps = { database: ctx.database, boss: ctx.boss };

  for (const rcpt of envelope.to) {
    const id = parseSignedAddress(secret, "unsubscribe", rcpt);
    if (id === undefined) continue;
    const recipient = await findRecipient(ctx.database, id);
    if (!recipient) return { kind: "dropped", why: "unsubscribe address of an unknown recipient" };
    await recordEngagement(deps, recipient, { type: "unsubscribed", reason: "The recipient unsubscribed by email (List-Unsubscribe mailto)" });
    return { kind: "unsubscribed", recipients: [recipient.email] };
  }

  if (envelope.to.some(isDmarcAddress)) return handleDmarcReport(ctx, raw, envelope.from);

  const report = await parseReport(raw);
  if (report.kind === "unknown") return { kind: "dropped", why: "neither a delivery status notification nor a feedback report" };

  const ignore = (why: string, extra: Record<string, unknown> = {}): InboundOutcome => {
    ctx.log.warn({ kind: report.kind, from: envelope.from, to: envelope.to, originalMessageId: report.original.messageId, reason: why, ...extra }, "inbound report ignored");
    return { kind: "dropped", why };
  };

  const tokens = signedRecipientIds(secret, report, envelope.to);
  const ids = [...new Set(tokens.map((t) => t.id))];
  if (!ids.length) return ignore("no signed VERP address or token of ours (a Message-ID alone attributes nothing)");
  if (ids.length > 1) return ignore("its signed tokens name different copies", { tokens });
  const recipient = await findRecipient(ctx.database, ids[0]!);
  if (!recipient) return ignore("its signed token names no stored recipient (purged?)", { tokens });

  if (report.kind === "arf") {
    const named = report.feedback?.originalRcptTo ?? "";
    if (named && !sameAddress(named, recipient.email)) {
      return ignore("the feedback report names a recipient other than the copy its token belongs to", { named, tokens });
    }
    await recordEngagement(deps, recipient, {
      type: "complained",
      reason: `Feedback report (${report.feedback?.type ?? "abuse"}) from ${report.feedback?.userAgent || envelope.from || "a feedback loop"}`,
      details: { feedbackType: report.feedback?.type ?? "abuse", userAgent: report.feedback?.userAgent ?? "" },
    });
    ctx.guardrails.note(recipient.accountId);
    return { kind: "complained", recipients: [recipient.email] };
  }

  const failed = report.recipients.filter((r) => r.action === "failed" || (!r.action && r.status.startsWith("5.")));
  if (!failed.length) return { kind: "dropped", why: "delivery status notification without a failed recipient (delayed or relayed)" };
  const entry = failed.find((r) => sameAddress(r.recipient, recipient.email) || (r.originalRecipient && sameAddress(r.originalRecipient, recipient.email)));
  const others = failed.filter((r) => r !== entry).map((r) => r.recipient);
  if (!entry) return ignore("the delivery status notification names a recipient other than the copy its token belongs to", { named: others, tokens });
  if (others.length) ctx.log.warn({ named: others, to: envelope.to, reason: "not the copy its token belongs to" }, "inbound report: other recipients ignored");
  const event = await recordLateBounce(deps, recipient, {
    status: entry.status || "5.0.0",
    diagnostic: entry.diagnostic,
    remoteMta: entry.remoteMta,
    source: "dsn",
  });
  if (event) ctx.guardrails.note(recipient.accountId);
  return { kind: "bounced", recipients: event ? [recipient.email] : [] };
}
