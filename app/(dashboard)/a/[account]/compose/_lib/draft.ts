import {
  emailRequestSchema,
  isOwnedHeader,
  MAX_BCC,
  MAX_CC,
  MAX_CUSTOM_HEADERS,
  MAX_MESSAGE_BYTES,
  MAX_REPLY_TO,
  MAX_TAGS,
  MAX_TO,
  TRACKING_HEADER,
  TRACKING_MODES,
  type EmailRequest,
} from "@/lib/contract/email";
import { MAX_LINE_LENGTH, isStorableText, isUsableName, isValidEmail } from "@/lib/contract/text";

/**
 * The compose form's content (everything but the files' bytes), its
 * conversion into the POST /email request, and the checks the form makes
 * before sending. Pure: the browser runs it before the upload, the route
 * handler again on what arrived. Errors are keyed by the API's own `Field`
 * paths (`From.email`, `To[2].email`, `Attachments[0]`), so that the API's
 * answers and these checks land on the same fields. The checks are the API's
 * own rules (lib/contract/text.ts, the contract's schema): what the form
 * accepts the API accepts, and the other way round
 * (draft-agrees-with-api.test.ts).
 */

export interface DraftAddress {
  name: string;
  email: string;
}

export interface DraftAttachment {
  filename: string;
  type: string;
  size: number;
  disposition: "attachment" | "inline";
  contentId: string;
}

export interface Draft {
  from: { local: string; domain: string; name: string };
  to: DraftAddress[];
  cc: DraftAddress[];
  bcc: DraftAddress[];
  replyTo: DraftAddress[];
  subject: string;
  html: string;
  text: string;
  tags: string;
  headers: { name: string; value: string }[];
  attachments: DraftAttachment[];
}

export type AddressListKey = "To" | "CC" | "BCC" | "ReplyTo";

export const LIST_LIMITS: Record<AddressListKey, number> = { To: MAX_TO, CC: MAX_CC, BCC: MAX_BCC, ReplyTo: MAX_REPLY_TO };
export const LIST_LABELS: Record<AddressListKey, string> = { To: "To", CC: "CC", BCC: "BCC", ReplyTo: "Reply-To" };

export type FieldErrors = Record<string, string>;

export function emptyDraft(domain = ""): Draft {
  return {
    from: { local: "", domain, name: "" },
    to: [{ name: "", email: "" }],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: "",
    html: "",
    text: "",
    tags: "",
    headers: [],
    attachments: [],
  };
}

const isBlank = (a: DraftAddress) => !a.name.trim() && !a.email.trim();

function addresses(list: DraftAddress[]) {
  return list.filter((a) => !isBlank(a)).map((a) => (a.name.trim() ? { name: a.name.trim(), email: a.email.trim() } : { email: a.email.trim() }));
}

/** Rows of a list as the request will carry them (blank rows dropped), keeping their index in the form. */
export function listEntries(list: DraftAddress[]): { index: number; address: DraftAddress }[] {
  return list.map((address, index) => ({ index, address })).filter((e) => !isBlank(e.address));
}

export function parseTags(tags: string): string[] {
  return tags
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

/** The POST /email body for a draft; `contents` are the attachments' base64 contents in order. */
export function toEmailRequest(draft: Draft, contents: string[]): EmailRequest {
  const html = draft.html.trim() ? draft.html : undefined;
  const text = draft.text.trim() ? draft.text : undefined;
  const tags = parseTags(draft.tags);
  const headers = draft.headers.filter((h) => h.name.trim());
  const request: EmailRequest = {
    From: {
      email: `${draft.from.local.trim()}@${draft.from.domain.trim()}`,
      ...(draft.from.name.trim() && { name: draft.from.name.trim() }),
    },
    To: addresses(draft.to),
    Subject: draft.subject,
    ContentType: html !== undefined ? "HTML" : "Text",
    ...(html !== undefined && { HTMLContent: html }),
    ...(text !== undefined && { PlainContent: text }),
  };
  const cc = addresses(draft.cc);
  const bcc = addresses(draft.bcc);
  const replyTo = addresses(draft.replyTo);
  if (cc.length) request.CC = cc;
  if (bcc.length) request.BCC = bcc;
  if (replyTo.length) request.ReplyTo = replyTo;
  if (tags.length) request.Tags = tags;
  if (headers.length) request.Headers = Object.fromEntries(headers.map((h) => [h.name.trim(), h.value]));
  if (draft.attachments.length) {
    request.Attachments = draft.attachments.map((a, i) => ({
      Filename: a.filename,
      Content: contents[i] ?? "",
      ...(a.type && { Type: a.type }),
      Disposition: a.disposition,
      ...(a.disposition === "inline" && a.contentId.trim() && { ContentId: a.contentId.trim() }),
    }));
  }
  return request;
}

/** Decoded size as the API counts it: bodies plus attachments. */
export function messageBytes(draft: Pick<Draft, "html" | "text" | "attachments">): number {
  const enc = new TextEncoder();
  return enc.encode(draft.html).length + enc.encode(draft.text).length + draft.attachments.reduce((n, a) => n + a.size, 0);
}

const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
const TRACKING_LOWER = TRACKING_HEADER.toLowerCase();
const NAME_REFUSED = `A name is at most ${MAX_LINE_LENGTH} characters, without line breaks or other control characters`;
const UNSTORABLE = "Contains a character that cannot be sent (a NUL or a broken emoji)";

/** `["To", 2, "email"]` → `To[2].email` (the API's Field form). */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/**
 * What the form checks before sending: the contract's zod schema (counts,
 * required members, subject and tag lengths in characters) plus the rest of
 * the API's rules with a message a person understands (the address rules of
 * docs/contract.md §5.17, names, owned headers, the 10 MB total). Keys are
 * API Field paths, with list indexes of the form's rows.
 */
export function validateDraft(draft: Draft): FieldErrors {
  const errors: FieldErrors = {};
  const put = (key: string, message: string) => {
    errors[key] ??= message;
  };
  if (!draft.from.domain) put("From", "Choose a sender domain");
  if (!draft.from.local.trim()) put("From.email", "Enter the part before the @");
  else if (!isValidEmail(`${draft.from.local.trim()}@${draft.from.domain.trim()}`)) put("From.email", "Not a valid address");
  if (!isUsableName(draft.from.name.trim())) put("From.name", NAME_REFUSED);

  const lists: [AddressListKey, DraftAddress[]][] = [
    ["To", draft.to],
    ["CC", draft.cc],
    ["BCC", draft.bcc],
    ["ReplyTo", draft.replyTo],
  ];
  for (const [key, list] of lists) {
    const entries = listEntries(list);
    if (key === "To" && entries.length === 0) put("To", "Add at least one recipient");
    if (entries.length > LIST_LIMITS[key]) {
      put(key, `At most ${LIST_LIMITS[key]} ${LIST_LABELS[key]} addresses per message (${entries.length} now): remove ${entries.length - LIST_LIMITS[key]}`);
    }
    for (const { index, address } of entries) {
      if (!address.email.trim()) put(`${key}[${index}].email`, "Enter an email address");
      else if (!isValidEmail(address.email.trim())) put(`${key}[${index}].email`, "Not a valid address");
      if (!isUsableName(address.name.trim())) put(`${key}[${index}].name`, NAME_REFUSED);
    }
  }
  if (!draft.subject.trim()) put("Subject", "Enter a subject");
  else if (!isStorableText(draft.subject)) put("Subject", UNSTORABLE);
  if (!draft.html.trim() && !draft.text.trim()) put("HTMLContent", "Write an HTML or a plain-text body (both is best)");
  if (draft.html.trim() && !isStorableText(draft.html)) put("HTMLContent", UNSTORABLE);
  if (draft.text.trim() && !isStorableText(draft.text)) put("PlainContent", UNSTORABLE);
  const tags = parseTags(draft.tags);
  if (tags.length > MAX_TAGS) put("Tags", `At most ${MAX_TAGS} tags`);
  tags.forEach((t, i) => {
    if (!isStorableText(t)) put(`Tags[${i}]`, UNSTORABLE);
  });
  const named = draft.headers.filter((h) => h.name.trim());
  if (named.length > MAX_CUSTOM_HEADERS) put("Headers", `At most ${MAX_CUSTOM_HEADERS} headers`);
  draft.headers.forEach((h, i) => {
    const name = h.name.trim();
    if (!name) return;
    if (!HEADER_NAME.test(name)) put(`Headers[${i}]`, "A header name is letters, digits and dashes, without spaces or a colon");
    else if (name.length > MAX_LINE_LENGTH) put(`Headers[${i}]`, `A header name is at most ${MAX_LINE_LENGTH} characters`);
    else if (isOwnedHeader(name)) put(`Headers[${i}]`, `${name} is set by the service and cannot be overridden`);
    else if (/[\r\n]/.test(h.value)) put(`Headers[${i}]`, "A header value cannot contain line breaks");
    else if (h.value.length > MAX_LINE_LENGTH) put(`Headers[${i}]`, `A header value is at most ${MAX_LINE_LENGTH} characters`);
    else if (!isStorableText(h.value)) put(`Headers[${i}]`, UNSTORABLE);
    else if (name.toLowerCase() === TRACKING_LOWER && !(TRACKING_MODES as readonly string[]).includes(h.value.trim().toLowerCase())) {
      put(`Headers[${i}]`, `${TRACKING_HEADER} is one of ${TRACKING_MODES.join(", ")}`);
    }
  });
  draft.attachments.forEach((a, i) => {
    if (a.disposition === "inline" && !a.contentId.trim()) put(`Attachments[${i}]`, "An inline image needs a content id (used as cid:<id> in the HTML)");
  });
  if (messageBytes(draft) > MAX_MESSAGE_BYTES) put("Attachments", "Bodies and attachments together exceed 10 MB: remove or shrink an attachment");

  // The contract's schema over the request itself (placeholder contents: the files are checked by size above).
  const parsed = emailRequestSchema.safeParse(toEmailRequest(draft, draft.attachments.map(() => "")));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = fieldPath(issue.path);
      const top = key.split(/[.[]/)[0]!;
      // Indexes of the request skip blank rows; the checks above already name the form's rows.
      if (top === "To" || top === "CC" || top === "BCC" || top === "ReplyTo" || top === "From") continue;
      put(key, issue.message);
    }
  }
  return errors;
}
