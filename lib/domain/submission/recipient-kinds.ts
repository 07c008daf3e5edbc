import { MAX_BCC, MAX_CC, MAX_TO } from "../../contract/email";
import { normalizeEmail } from "../accounts/suppressions";

/**
 * How the envelope recipients of an SMTP submission map to the To, CC and
 * BCC of docs/contract.md §5.3–§5.5, whose limits (10/10/5) they count against: a RCPT
 * named in the To header is a To recipient, one named in Cc a CC one, any
 * other a BCC one (it is in no header, which is what BCC means). Header
 * addresses that are not envelope recipients receive nothing, as in SMTP.
 * Pure.
 */

export type RecipientKind = "to" | "cc" | "bcc";

export interface KindedRecipient {
  email: string;
  normalized: string;
  kind: RecipientKind;
}

export type KindResult = { ok: true; recipients: KindedRecipient[] } | { ok: false; kind: RecipientKind; count: number; max: number };

export const MAX_PER_KIND: Record<RecipientKind, number> = { to: MAX_TO, cc: MAX_CC, bcc: MAX_BCC };
/** The most envelope recipients a message can have (10 + 10 + 5): a RCPT past it is refused at once. */
export const MAX_ENVELOPE_RECIPIENTS = MAX_TO + MAX_CC + MAX_BCC;

export function recipientKinds(rcptTo: readonly string[], headerTo: readonly string[], headerCc: readonly string[]): KindResult {
  const to = new Set(headerTo.map(normalizeEmail));
  const cc = new Set(headerCc.map(normalizeEmail));
  const seen = new Set<string>();
  const recipients: KindedRecipient[] = [];
  for (const email of rcptTo) {
    const normalized = normalizeEmail(email);
    if (seen.has(normalized)) continue;
    seen.add(normalized);
    recipients.push({ email, normalized, kind: to.has(normalized) ? "to" : cc.has(normalized) ? "cc" : "bcc" });
  }
  for (const kind of ["to", "cc", "bcc"] as const) {
    const count = recipients.filter((r) => r.kind === kind).length;
    if (count > MAX_PER_KIND[kind]) return { ok: false, kind, count, max: MAX_PER_KIND[kind] };
  }
  // To before CC before BCC, like POST /email.
  const order = { to: 0, cc: 1, bcc: 2 };
  return { ok: true, recipients: recipients.sort((a, b) => order[a.kind] - order[b.kind]) };
}
