import type { AppContext } from "../context";
import { parseSignedAddress } from "../delivery/verp";
import {
  findRecipient,
  findRecipientByEmail,
  findSoleRecipient,
  recordEngagement,
  recordLateBounce,
  type RecipientRef,
} from "../domain/recipient-events";
import { parseReport } from "./report-parser";

/**
 * What the inbound SMTP server does with one received message:
 * - to a signed `unsubscribe+…` address (List-Unsubscribe mailto) → unsubscribed;
 * - a DSN (report-type=delivery-status) → `failed` for each failed recipient;
 * - an ARF report (report-type=feedback-report) → `complained`.
 * Attribution: the VERP address it was sent to (or the ARF's
 * Original-Mail-From), else the returned message's Message-ID plus the
 * recipient address. Anything unattributable is dropped with a log line.
 */

export type InboundOutcome =
  | { kind: "unsubscribed" | "complained" | "bounced"; recipients: string[] }
  | { kind: "dropped"; why: string };

export interface InboundEnvelope {
  from: string;
  to: string[];
}

function messageIdOf(header: string): string | undefined {
  return /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@/i.exec(header)?.[1]?.toLowerCase();
}

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

  const report = await parseReport(raw);
  if (report.kind === "unknown") return { kind: "dropped", why: "neither a delivery status notification nor a feedback report" };

  const verpIds = [...envelope.to, report.feedback?.originalMailFrom ?? "", report.original.returnPath]
    .map((a) => parseSignedAddress(secret, "bounces", a))
    .filter((id): id is number => id !== undefined);
  const verpRecipient = verpIds.length ? await findRecipient(ctx.database, verpIds[0]!) : undefined;
  const originalId = messageIdOf(report.original.messageId);

  const resolve = async (email: string): Promise<RecipientRef | undefined> => {
    if (verpRecipient && (!email || verpRecipient.email.toLowerCase() === email.toLowerCase())) return verpRecipient;
    const messageId = verpRecipient?.messageId ?? originalId;
    if (!messageId) return undefined;
    if (email) return findRecipientByEmail(ctx.database, messageId, email);
    return findSoleRecipient(ctx.database, messageId);
  };

  if (report.kind === "arf") {
    const recipient = (await resolve(report.feedback?.originalRcptTo ?? "")) ?? (report.original.to.length === 1 ? await resolve(report.original.to[0]!) : undefined);
    if (!recipient) return { kind: "dropped", why: "feedback report for no known message and recipient" };
    await recordEngagement(deps, recipient, {
      type: "complained",
      reason: `Feedback report (${report.feedback?.type ?? "abuse"}) from ${report.feedback?.userAgent || envelope.from || "a feedback loop"}`,
      details: { feedbackType: report.feedback?.type ?? "abuse", userAgent: report.feedback?.userAgent ?? "" },
    });
    return { kind: "complained", recipients: [recipient.email] };
  }

  const bounced: string[] = [];
  const failed = report.recipients.filter((r) => r.action === "failed" || (!r.action && r.status.startsWith("5.")));
  for (const entry of failed) {
    const recipient = (await resolve(entry.recipient)) ?? (failed.length === 1 ? verpRecipient : undefined);
    if (!recipient) continue;
    const event = await recordLateBounce(deps, recipient, {
      status: entry.status || "5.0.0",
      diagnostic: entry.diagnostic,
      remoteMta: entry.remoteMta,
      source: "dsn",
    });
    if (event) bounced.push(recipient.email);
  }
  if (!failed.length) return { kind: "dropped", why: "delivery status notification without a failed recipient (delayed or relayed)" };
  if (!bounced.length && !verpRecipient && !originalId) return { kind: "dropped", why: "delivery status notification for no known message" };
  return { kind: "bounced", recipients: bounced };
}
