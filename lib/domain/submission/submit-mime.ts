import { randomUUID } from "node:crypto";
import { domainToASCII } from "node:url";
import { simpleParser, type AddressObject, type EmailAddress } from "mailparser";
import { TRACKING_MODES, type TrackingMode } from "../../contract/email";
import type { AuthenticatedKey } from "../accounts/api-keys";
import { emailDomain } from "../sending/email-request/addresses";
import type { ContentAddress, MessageContent } from "../sending/email-request/message-content";
import { messageHeadersOf } from "../sending/email-request/message-record";
import { nowSeconds } from "../events/event-log";
import { refusingWindow, secondsToReset } from "../sending/limits";
import { keyMaySendFrom } from "../accounts/key-scope";
import { isVerifiedDomain, type SendDeps } from "../sending/send-email";
import { isStorableText } from "../../contract/text";
import { editHeaderBlock, toCrlf } from "./header-block";
import { FIELD_NAMES, checkOriginatorHeaders, originatorDomains } from "./originator-headers";
import { recipientKinds } from "./recipient-kinds";
import { REPLY, type SmtpReply } from "./replies";

/**
 * An SMTP submission as a use case: the message as received (already
 * bounded to the size limit by the server) is parsed with mailparser, its
 * originator headers checked (one From, no repeated single field, every
 * From/Sender/Resent-* address on a verified domain: originator-headers.ts), its envelope
 * recipients mapped to To/CC/BCC and counted (recipient-kinds.ts), then
 * accepted through the same path as POST /email (`deps.accept`, the acceptor of send-email.ts: suppression,
 * plan limits, events, jobs, group commit). Whole or nothing: either every
 * envelope recipient is accepted under one MessageID, or the reply refuses
 * the message and nothing is stored.
 */

export interface Submission {
  raw: Buffer;
  /** The envelope sender (already checked at MAIL FROM). */
  mailFrom: string;
  rcptTo: string[];
}

export type SubmitResult = { ok: true; messageId: string; reply: SmtpReply } | { ok: false; reply: SmtpReply };

const flatten = (a: AddressObject | AddressObject[] | undefined): EmailAddress[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((o) => o.value).flatMap((v) => (v.group ? v.group : [v]));

/** Display names and subjects go to jsonb: characters it refuses are dropped rather than failing the message. */
function storable(s: string | undefined): string {
  if (!s) return "";
  if (isStorableText(s)) return s;
  return Array.from(s)
    .filter((c) => isStorableText(c))
    .join("");
}

/** Case-insensitive, and a domain in Unicode equals its xn-- form (mailparser turns `@xn--…` into Unicode). */
function sameAddress(a: string, b: string): boolean {
  const ascii = (x: string) => {
    const at = x.lastIndexOf("@");
    const domain = x.slice(at + 1).toLowerCase();
    return `${x.slice(0, at).toLowerCase()}@${domainToASCII(domain) || domain}`;
  };
  return ascii(a) === ascii(b);
}

const toContent = (a: EmailAddress): ContentAddress => ({ name: storable(a.name), email: storable(a.address) });

export async function submitMime(deps: SendDeps, key: AuthenticatedKey, submission: Submission, options: { now?: number } = {}): Promise<SubmitResult> {
  const now = options.now ?? nowSeconds();
  let parsed;
  try {
    // Only the headers are used, but the parse checks the whole structure; links and text/HTML conversions are skipped.
    parsed = await simpleParser(submission.raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true });
  } catch {
    return { ok: false, reply: REPLY.unparsable };
  }

  // Every From, Sender and Resent-From/-Sender address, each single field at most once (originator-headers.ts).
  const originators = checkOriginatorHeaders(parsed.headerLines);
  if (!originators.ok) return { ok: false, reply: originators.reply };
  // The From mailparser read (its display name decoded) must be the one checked: it is what is stored and shown.
  const parsedFrom = flatten(parsed.from);
  if (parsedFrom.length !== 1 || !sameAddress(parsedFrom[0]!.address ?? "", originators.from.address)) return { ok: false, reply: REPLY.fromHeader };
  const from = parsedFrom[0]!;
  const fromDomain = emailDomain(originators.from.address);
  // One query per distinct domain, the first unverified one refuses: at most the account's verified domains plus one.
  for (const [domain, field] of originatorDomains(originators.originators)) {
    // A key limited to some sender domains (docs/contract.md §17.3) holds every originator field to them.
    if (!keyMaySendFrom(key.senderDomains, domain)) return { ok: false, reply: REPLY.senderNotAllowedForKey(domain) };
    if (await isVerifiedDomain(deps, key.accountId, domain)) continue;
    return { ok: false, reply: field === "from" ? REPLY.senderNotVerified(domain) : REPLY.originatorNotVerified(FIELD_NAMES[field], domain) };
  }

  const to = flatten(parsed.to).filter((a) => a.address);
  const cc = flatten(parsed.cc).filter((a) => a.address);
  const kinds = recipientKinds(
    submission.rcptTo,
    to.map((a) => a.address!),
    cc.map((a) => a.address!),
  );
  if (!kinds.ok) {
    return { ok: false, reply: { code: 554, text: `5.5.3 Too many ${kinds.kind.toUpperCase()} recipients: ${kinds.count}, at most ${kinds.max} (envelope recipients not named in To or Cc count as Bcc)` } };
  }

  const messageId = randomUUID();
  let tracking: TrackingMode | undefined;
  const raw = editHeaderBlock(toCrlf(submission.raw), (h) => {
    // Bcc recipients are envelope recipients; the header would disclose them.
    h.remove("bcc");
    const track = h.getFirst("x-mailroom-track").toLowerCase();
    if ((TRACKING_MODES as readonly string[]).includes(track)) tracking = track as TrackingMode;
    h.remove("x-mailroom-track");
    if (!parsed.messageId) h.add("Message-ID", `<${messageId}@${domainToASCII(fromDomain) || fromDomain}>`);
    if (!h.hasHeader("date")) h.add("Date", new Date(now * 1000).toUTCString().replace("GMT", "+0000"));
  });

  const names = new Map([...to, ...cc].map((a) => [a.address!.toLowerCase(), storable(a.name)]));
  const bcc = kinds.recipients.filter((r) => r.kind === "bcc");
  const content: MessageContent = {
    from: toContent(from),
    to: to.map(toContent),
    cc: cc.map(toContent),
    bcc: bcc.map((r) => ({ name: "", email: r.email })),
    replyTo: flatten(parsed.replyTo)
      .filter((a) => a.address)
      .map(toContent),
    subject: storable(parsed.subject),
    contentType: parsed.html ? "HTML" : "Text",
    attachments: [],
    headers: [],
    tags: [],
    ...(tracking && { tracking }),
    mime: raw.toString("base64"),
  };
  const outcome = await deps.accept({
    messageId,
    key,
    content,
    headers: messageHeadersOf(messageId, content),
    recipients: kinds.recipients.map((r) => ({ email: r.email, name: names.get(r.normalized) ?? "", kind: r.kind, normalized: r.normalized })),
    transport: "smtp",
    size: raw.length,
    now,
  });
  if (outcome.ok) return { ok: true, messageId, reply: REPLY.accepted(messageId) };
  if (outcome.reason === "suppressed") return { ok: false, reply: REPLY.allSuppressed };
  // Only POST /email claims Idempotency-Keys; a submission is never a duplicate.
  if (outcome.reason === "duplicate") throw new Error("SMTP submission claimed no Idempotency-Key");
  const w = refusingWindow(outcome.refused)!;
  const wait = secondsToReset(w.kind, now);
  return { ok: false, reply: w.code === 17 ? REPLY.quotaReached(wait) : REPLY.rateLimited(w.kind, wait) };
}
