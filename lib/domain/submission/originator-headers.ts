import { Headers } from "@zone-eu/mailsplit";
import addressparser from "nodemailer/lib/addressparser";
import { MAX_ADDRESS_LENGTH, emailDomain } from "../sending/email-request/addresses";
import { isValidEmail } from "../../contract/text";
import { REPLY, type SmtpReply } from "./replies";

/**
 * The header fields of a submitted message that say who it is from, read
 * before anything is accepted (pure; docs/adr/0703):
 *
 * - No header line holds a bare CR (one reader's line break, another's
 *   ordinary character).
 * - Each field RFC 5322 §3.6 allows at most once (Date, From, Sender,
 *   Reply-To, To, Cc, Bcc, Message-ID, In-Reply-To, References, Subject)
 *   appears at most once: with two From fields, mailparser, the DKIM `h=`
 *   list and a mail client may each read a different one.
 * - From holds exactly one mailbox; Sender and Resent-Sender at most one
 *   (exactly one when present); each Resent-From one or more. No groups,
 *   no entry without an address, every address valid.
 * - The caller checks that every originator address returned is on a
 *   verified sender domain of the account.
 *
 * The header lines are those mailparser split (mailsplit's parser, as in
 * header-block.ts), each value unfolded by libmime and read by nodemailer's
 * addressparser after the 998-character bound of docs/adr/0103.
 */

/** RFC 5322 §3.6, the table of field occurrences: these may appear at most once. */
export const SINGLE_FIELDS = ["date", "from", "sender", "reply-to", "to", "cc", "bcc", "message-id", "in-reply-to", "references", "subject"] as const;

/** Fields naming an originator: their addresses must be on a verified domain. */
export const ORIGINATOR_FIELDS = ["from", "sender", "resent-from", "resent-sender"] as const;
export type OriginatorField = (typeof ORIGINATOR_FIELDS)[number];

/** Resent blocks a message may carry (each a Resent-From and perhaps a Resent-Sender): more is no real forwarding chain. */
export const MAX_RESENT_FIELDS = 20;

/** How the header is written in replies. */
export const FIELD_NAMES: Record<(typeof SINGLE_FIELDS)[number] | OriginatorField, string> = {
  date: "Date",
  from: "From",
  sender: "Sender",
  "reply-to": "Reply-To",
  to: "To",
  cc: "Cc",
  bcc: "Bcc",
  "message-id": "Message-ID",
  "in-reply-to": "In-Reply-To",
  references: "References",
  subject: "Subject",
  "resent-from": "Resent-From",
  "resent-sender": "Resent-Sender",
};

export interface HeaderLine {
  key: string;
  line: string;
}

export interface Originator {
  field: OriginatorField;
  name: string;
  address: string;
}

export type OriginatorCheck = { ok: true; from: Originator; originators: Originator[] } | { ok: false; reply: SmtpReply };

type Entry = { name?: string; address?: string; group?: unknown[] };

/** The mailboxes of one field value, or undefined when it is not a plain list of valid addresses. */
function mailboxes(value: string): { name: string; address: string }[] | undefined {
  if (value.length > MAX_ADDRESS_LENGTH) return undefined;
  let parsed: Entry[];
  try {
    parsed = addressparser(value) as Entry[];
  } catch {
    return undefined;
  }
  const out: { name: string; address: string }[] = [];
  for (const e of parsed) {
    // A group, or a name without an address (`"ceo@bank.test", shop@example.com`): refused, never skipped.
    if (e.group || !e.address) return undefined;
    const address = e.address.trim();
    if (!isValidEmail(address)) return undefined;
    out.push({ name: (e.name ?? "").trim(), address });
  }
  return out;
}

/** A CR not followed by LF: mailsplit keeps it inside a line, where another reader may start a new header (`Subject: x<CR>From: …`). */
function hasBareCr(line: string): boolean {
  for (let i = line.indexOf("\r"); i >= 0; i = line.indexOf("\r", i + 1)) if (line.charCodeAt(i + 1) !== 10) return true;
  return false;
}

export function checkOriginatorHeaders(lines: readonly HeaderLine[]): OriginatorCheck {
  const counts = new Map<string, number>();
  for (const l of lines) {
    if (hasBareCr(l.line)) return { ok: false, reply: REPLY.bareCr };
    counts.set(l.key, (counts.get(l.key) ?? 0) + 1);
  }
  for (const key of SINGLE_FIELDS) {
    const n = counts.get(key) ?? 0;
    if (n > 1) return { ok: false, reply: REPLY.duplicateHeader(FIELD_NAMES[key], n) };
  }
  const resent = (counts.get("resent-from") ?? 0) + (counts.get("resent-sender") ?? 0);
  if (resent > MAX_RESENT_FIELDS) return { ok: false, reply: REPLY.tooManyResent(MAX_RESENT_FIELDS) };

  // A Headers built on parsed lines is read only here: get() decodes each line from the wire's bytes as UTF-8.
  const headers = new Headers(lines.map((l) => ({ ...l })));
  const originators: Originator[] = [];
  let from: Originator | undefined;
  for (const field of ORIGINATOR_FIELDS) {
    for (const { value } of headers.getDecoded(field)) {
      const list = mailboxes(value.trim());
      const single = field !== "resent-from";
      if (!list || list.length === 0 || (single && list.length !== 1)) {
        return { ok: false, reply: field === "from" ? REPLY.fromHeader : REPLY.originatorHeader(FIELD_NAMES[field], single) };
      }
      for (const m of list) originators.push({ field, ...m });
      if (field === "from") from = { field, ...list[0]! };
    }
  }
  if (!from) return { ok: false, reply: REPLY.fromHeader };
  return { ok: true, from, originators };
}

/** The distinct domains of the originators, lowercased, each with the first field that named it. */
export function originatorDomains(originators: readonly Originator[]): Map<string, OriginatorField> {
  const out = new Map<string, OriginatorField>();
  for (const o of originators) {
    const d = emailDomain(o.address);
    if (!out.has(d)) out.set(d, o.field);
  }
  return out;
}
