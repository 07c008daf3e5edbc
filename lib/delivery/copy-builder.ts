import { domainToASCII } from "node:url";
import { buildMessage, type DkimKey } from "./build-message";
import { createCopyTemplate, templateApplies, type CopyTemplate } from "./message-template";
import { buildRawCopy, extractHtmlPart } from "./raw-copy";
import type { MessageContent } from "../domain/sending/email-request/message-content";
import { encodeTrackingToken } from "../tracking/tracking-tokens";
import { planTracking, renderTrackingPieces } from "../tracking/tracking-html";
import { bounceDomainFor, signedAddress, verpAddress } from "../tracking/verp";
import { withReplyAddress } from "./reply-address";
import { trackingBaseUrl } from "../domain/tracking/tracked-links";
import type { Logger } from "../logger";
import type { MessageRow, RecipientRow } from "./load-messages";
import type { Envelope } from "./transports";

/**
 * The per-message half of building copies: everything each recipient's copy
 * shares (DKIM key, tracking plan, return-path domain, the composed template)
 * is worked out once here; `build` then makes one recipient's copy (its VERP
 * return path, tracking links and unsubscribe URL name it).
 */

/** Tracking tokens signed between two turns of the event loop. */
const TOKENS_PER_TURN = 500;

export function trackingFor(content: MessageContent, account: { track_opens: boolean; track_clicks: boolean }) {
  const mode = content.tracking;
  // A raw MIME submission has an HTML part when acceptance saw one (contentType "HTML").
  const hasHtml = Boolean(content.html) || (content.mime !== undefined && content.contentType === "HTML");
  return {
    opens: hasHtml && account.track_opens && (mode === undefined || mode === "opens" || mode === "all"),
    clicks: hasHtml && account.track_clicks && (mode === undefined || mode === "clicks" || mode === "all"),
  };
}

export interface CopyBuilder {
  build(recipient: RecipientRow): Promise<Envelope>;
  /** An SMTP submission's own bytes (raw-copy.ts), undefined for a composed message. */
  mime?: Buffer;
  /** The trackable links to keep with the message, when none are kept yet. */
  links?: string[];
}

export interface CopyOptions {
  message: MessageRow;
  content: MessageContent;
  recipientCount: number;
  secret: string;
  publicUrl: string;
  bounceDomain?: string;
  log: Logger;
}

export async function prepareCopies({ message, content: stored, recipientCount, secret, publicUrl, bounceDomain: configured, log }: CopyOptions): Promise<CopyBuilder> {
  const dkim: DkimKey | undefined =
    message.dkim_private_key && message.dkim_domain && message.dkim_selector
      ? { domainName: domainToASCII(message.dkim_domain) || message.dkim_domain, keySelector: message.dkim_selector, privateKey: message.dkim_private_key }
      : undefined;
  // The reply address is in the content before any copy is composed, so DKIM signs it (docs/adr/0804).
  const content = withReplyAddress(stored, (message.inbound_matches ?? []).map((match) => ({ match })), secret, message.id);
  const tracking = trackingFor(content, message);
  // The sender domain's tracking domain, once its CNAME checks out, carries the links (docs/adr/0135).
  const base = trackingBaseUrl(publicUrl, message.tracking_domain);
  const fromDomain = domainToASCII(message.from_domain) || message.from_domain;
  // A scheduled message is dated when it goes out (docs/adr/0125).
  const date = message.send_at ?? message.created_at;
  const bounceDomain = bounceDomainFor(fromDomain, configured);

  // An SMTP submission is sent as its own bytes (raw-copy.ts); its first text/html part is what tracking rewrites.
  const mime = content.mime !== undefined ? Buffer.from(content.mime, "base64") : undefined;
  const trackedHtml = mime ? (tracking.opens || tracking.clicks ? await extractHtmlPart(mime) : undefined) : content.html;
  // The body is tokenized once per message (in chunks, yielding to the event loop); each copy is then spliced from the plan.
  const plan = trackedHtml && (tracking.opens || tracking.clicks) ? await planTracking(trackedHtml) : undefined;
  // The link list is kept with the outcomes (one statement). A click that comes first finds its
  // link in the stored HTML (findTrackedLink reads it then); a raw MIME message's HTML is not
  // readable that way, so its list is written before its first copy goes out (batched, with the size).
  const links = plan && tracking.clicks && !message.links_listed ? plan.links : undefined;

  // Several copies of a composed message: its shared parts composed once (message-template.ts).
  let template: CopyTemplate | undefined;
  if (!mime && recipientCount > 1 && templateApplies(content)) {
    const options = { messageId: message.id, fromDomain, date, content, dkim, hasUnsubscribe: true };
    template = await createCopyTemplate(options).catch((err: unknown) => {
      log.warn({ err, messageId: message.id }, "delivery: the message template could not be built; each copy is composed whole");
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
        : await buildMessage({ messageId: message.id, fromDomain, date, content, html, unsubscribe, dkim });
    return { from: verpAddress(secret, r.id, bounceDomain), to: r.email, raw, accountId: message.account_id, acceptedAt: date.getTime() };
  };
  return { build, mime, links };
}
