import { domainToASCII } from "node:url";
import type { AppContext } from "../context";
import { parseJsonText } from "../json-worker";
import type { DeliverEntry } from "../queue/jobs";
import { buildMessage, type DkimKey } from "./build-message";
import { createCopyTemplate, templateApplies, type CopyTemplate } from "./message-template";
import { buildRawCopy, extractHtmlPart } from "./raw-copy";
import { classifySmtpAnswer, internalErrorClassification, type Classification } from "./classify";
import { parseMessageContent, type MessageContent } from "../domain/email-request/message-content";
import { recordRound, type RoundResult } from "./record-outcomes";
import { encodeTrackingToken } from "../tracking/tracking-tokens";
import { recordMessageFacts } from "../domain/tracked-links";
import { planTracking, renderTrackingPieces } from "../tracking/tracking-html";
import type { RecipientRow } from "./load-messages";
import type { Envelope, Transport, TransportResult } from "./transports";
import { bounceDomainFor, signedAddress, verpAddress } from "../tracking/verp";

/**
 * One message of a `deliver` job: its pending recipients (of one domain).
 * Each recipient gets its own copy (its VERP return path, tracking links
 * and unsubscribe URL name it), all built from the one stored content and
 * sent over the transport's pooled connections. Recipients already final
 * are skipped, so a job retried after a crash never re-sends to them.
 */

/** Copies of one message built and handed to the transport together. */
const COPIES_IN_FLIGHT = 5;

/** Tracking tokens signed between two turns of the event loop. */
const TOKENS_PER_TURN = 500;

export interface DeliveryDeps {
  ctx: AppContext;
  transport: Transport;
  secret: string;
  /** Called with the time of each retry this worker scheduled (wakes the loop then, rather than at its next poll). */
  onRetryScheduled?: (atMs: number) => void;
}

export function trackingFor(content: MessageContent, account: { track_opens: boolean; track_clicks: boolean }) {
  const mode = content.tracking;
  // A raw MIME submission has an HTML part when acceptance saw one (contentType "HTML").
  const hasHtml = Boolean(content.html) || (content.mime !== undefined && content.contentType === "HTML");
  return {
    opens: hasHtml && account.track_opens && (mode === undefined || mode === "opens" || mode === "all"),
    clicks: hasHtml && account.track_clicks && (mode === undefined || mode === "clicks" || mode === "all"),
  };
}

/**
 * `jobId`: the job being run, completed in the transaction that records its
 * round (`jobCompleted`); a job that finds nothing to send records no round
 * and is left for the caller to complete.
 */
export async function processDeliverJob(deps: DeliveryDeps, entry: DeliverEntry, jobId?: string): Promise<{ sent: number; jobCompleted: boolean }> {
  const { ctx, secret, transport } = deps;
  const ids = (entry.recipientIds ?? []).filter((n) => Number.isSafeInteger(n));
  if (!entry.messageId || ids.length === 0) return { sent: 0, jobCompleted: false };
  const message = await ctx.deliveryLoader({ messageId: entry.messageId, recipientIds: ids });
  const recipients = message?.recipients ?? [];
  if (!message || recipients.length === 0) return { sent: 0, jobCompleted: false };
  const policy = { scheduleMs: ctx.config.delivery.retryScheduleMs, maxAgeMs: ctx.config.delivery.maxAgeMs };
  const round = {
    messageId: message.id,
    accountId: message.account_id,
    // A scheduled message's retries and max age count from its time, not from its acceptance (docs/adr/0125).
    acceptedAt: message.send_at ?? message.created_at,
    transport: transport.name,
    requestId: entry.requestId,
    jobId,
  };

  let content: MessageContent;
  try {
    content = parseMessageContent(message.content_text === null ? message.content : await parseJsonText(message.content_text));
  } catch (err) {
    ctx.log.error({ err, messageId: message.id }, "stored message content is unreadable; failing its recipients");
    const c: Classification = {
      outcome: "failed",
      smtpCode: null,
      enhancedCode: "5.6.0",
      diagnostic: "The stored message could not be built",
      bounceType: "hard",
      suppress: false,
    };
    await recordRound(ctx, policy, round, recipients.map((r) => ({ recipientId: r.id, email: r.email, attempts: r.attempts, classification: c, mxHost: "", durationMs: 0 })));
    return { sent: 0, jobCompleted: jobId !== undefined };
  }

  const dkim: DkimKey | undefined =
    message.dkim_private_key && message.dkim_domain && message.dkim_selector
      ? { domainName: domainToASCII(message.dkim_domain) || message.dkim_domain, keySelector: message.dkim_selector, privateKey: message.dkim_private_key }
      : undefined;
  const tracking = trackingFor(content, message);
  const base = ctx.publicUrl.replace(/\/+$/, "");
  const bounceDomain = bounceDomainFor(domainToASCII(message.from_domain) || message.from_domain, ctx.config.delivery.bounceDomain);

  // An SMTP submission is sent as its own bytes (raw-copy.ts); its first text/html part is what tracking rewrites.
  const mime = content.mime !== undefined ? Buffer.from(content.mime, "base64") : undefined;
  const trackedHtml = mime ? (tracking.opens || tracking.clicks ? await extractHtmlPart(mime) : undefined) : content.html;
  // The body is tokenized once per message (in chunks, yielding to the event loop); each copy is then spliced from the plan.
  const plan = trackedHtml && (tracking.opens || tracking.clicks) ? await planTracking(trackedHtml) : undefined;
  // The link list is kept with the outcomes (one statement). A click that comes first finds its
  // link in the stored HTML (findTrackedLink reads it then); a raw MIME message's HTML is not
  // readable that way, so its list is written before its first copy goes out (batched, with the size).
  const links = plan && tracking.clicks && !message.links_listed ? plan.links : undefined;
  let storedSize = message.size;

  const fromDomain = domainToASCII(message.from_domain) || message.from_domain;
  // Several copies of a composed message: its shared parts composed once (message-template.ts).
  let template: CopyTemplate | undefined;
  if (!mime && recipients.length > 1 && templateApplies(content)) {
    const options = { messageId: message.id, fromDomain, date: message.send_at ?? message.created_at, content, dkim, hasUnsubscribe: true };
    template = await createCopyTemplate(options).catch((err: unknown) => {
      ctx.log.warn({ err, messageId: message.id }, "delivery: the message template could not be built; each copy is composed whole");
      return undefined;
    });
  }

  const build = async (r: RecipientRow): Promise<Envelope> => {
    const token = (kind: "o" | "u") => encodeTrackingToken(secret, { kind, messageId: message.id, recipientId: r.id });
    // One HMAC per link: signed in batches with a turn of the event loop between them (10,000 links take ~40 ms).
    const linkUrls: string[] = [];
    if (plan && tracking.clicks) {
      for (let link = 0; link < plan.links.length; link++) {
        if (link > 0 && link % TOKENS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        linkUrls.push(`${base}/t/c/${encodeTrackingToken(secret, { kind: "c", messageId: message.id, recipientId: r.id, link })}`);
      }
    }
    const html =
      trackedHtml && plan
        ? renderTrackingPieces(trackedHtml, plan, {
            pixelUrl: tracking.opens ? `${base}/t/o/${token("o")}` : undefined,
            linkUrl: tracking.clicks ? (link) => linkUrls[link]! : undefined,
          })
        : content.html;
    const unsubscribe = { url: `${base}/t/u/${token("u")}`, mailto: signedAddress(secret, "unsubscribe", r.id, bounceDomain) };
    const raw = mime
      ? await buildRawCopy({ raw: mime, html: plan ? html : undefined, unsubscribe, dkim })
      : template && html !== undefined
        ? await template.build({ html, unsubscribe })
        : await buildMessage({ messageId: message.id, fromDomain, date: message.send_at ?? message.created_at, content, html, unsubscribe, dkim });
    return { from: verpAddress(secret, r.id, bounceDomain), to: r.email, raw };
  };

  // An entry is one recipient domain; group anyway so that MX delivery never mixes domains.
  // Copies are built and sent a few at a time: a 10 MB message to 25 recipients
  // must not hold 25 copies in memory at once.
  const byDomain = new Map<string, number[]>();
  recipients.forEach((r, i) => {
    const domain = r.email.split("@").pop()!.toLowerCase();
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), i]);
  });
  // A copy that cannot be built (a defect, a signing key that does not parse...) or a transport
  // that throws is an internal error of that recipient's round: deferred on the normal retry
  // schedule, then failed with the reason, like any other temporary failure (never a job that
  // throws until pg-boss gives up and the recipient stays queued for ever).
  const classifications: Classification[] = new Array(recipients.length);
  const answers: (TransportResult | undefined)[] = new Array(recipients.length);
  const internal = (i: number, err: unknown, where: string) => {
    const detail = { messageId: message.id, recipient: recipients[i]!.email, requestId: entry.requestId };
    // A database outage is logged once per outage (docs/adr/0008); a defect every time.
    if (!ctx.outage.report("delivery", err, detail)) ctx.log.error({ err, ...detail }, `delivery: ${where} threw; retried as an internal error`);
    classifications[i] = internalErrorClassification(err);
  };
  let size = 0;
  for (const [domain, indexes] of byDomain) {
    // A copy to this domain that ran out of time (a tarpit, docs/adr/0321): the rest of its copies in this
    // round are deferred untried, so that the round is recorded now rather than after one more limit per chunk.
    let timedOut: string | undefined;
    for (let k = 0; k < indexes.length; k += COPIES_IN_FLIGHT) {
      const chunk = indexes.slice(k, k + COPIES_IN_FLIGHT);
      if (timedOut) {
        const skipped = classifySmtpAnswer({ errorCode: "ESKIPPED", response: `Not tried: an earlier copy to ${domain} in this round timed out: ${timedOut}`, enhancedCode: "4.4.2" });
        for (const i of chunk) classifications[i] = skipped;
        continue;
      }
      const built = await Promise.all(
        chunk.map((i) =>
          build(recipients[i]!).then(
            (envelope) => ({ i, envelope }),
            (err: unknown) => internal(i, err, "building the copy"),
          ),
        ),
      );
      const ready = built.filter((b): b is { i: number; envelope: Envelope } => b !== undefined);
      if (ready.length === 0) continue;
      if (!size) {
        size = ready[0]!.envelope.raw.length;
        if (mime && (links || size !== storedSize)) {
          await recordMessageFacts(ctx.database, { messageId: message.id, links, size });
          storedSize = size;
        }
      }
      try {
        const out = await transport.sendAll(domain, ready.map((b) => b.envelope));
        ready.forEach((b, n) => {
          answers[b.i] = out[n]!;
          classifications[b.i] = classifySmtpAnswer(out[n]!.answer);
          if (out[n]!.answer.errorCode === "ETIMEDOUT") timedOut ??= classifications[b.i]!.diagnostic;
        });
      } catch (err) {
        for (const b of ready) internal(b.i, err, "the transport");
      }
    }
  }
  const results: RoundResult[] = recipients.map((r, i) => ({
    recipientId: r.id,
    email: r.email,
    attempts: r.attempts,
    classification: classifications[i]!,
    mxHost: answers[i]?.mxHost ?? "",
    durationMs: answers[i]?.durationMs ?? 0,
  }));
  const retries = await recordRound(ctx, policy, { ...round, size, storedSize, links: mime ? undefined : links }, results);
  for (const at of retries) deps.onRetryScheduled?.(at);
  return { sent: recipients.length, jobCompleted: jobId !== undefined };
}
