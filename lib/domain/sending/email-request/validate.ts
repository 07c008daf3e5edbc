import { errorItem, type ApiErrorItem, type ErrorCode } from "../../../contract/errors";
import {
  MAX_BCC,
  MAX_CC,
  MAX_CUSTOM_HEADERS,
  MAX_MESSAGE_BYTES,
  MAX_REPLY_TO,
  MAX_SUBJECT_LENGTH,
  MAX_TAGS,
  MAX_TAG_LENGTH,
  MAX_TO,
  TRACKING_HEADER,
  TRACKING_MODES,
  isOwnedHeader,
  type TrackingMode,
} from "../../../contract/email";
import { MAX_LINE_LENGTH, isStorableText, withinCodePoints } from "../../../contract/text";
import { JsonNumberText } from "../../shared/json-number";
import { parseAddress } from "./addresses";
import { inferMimeType, isMimeType, sanitizeFilename, strictBase64Length } from "./attachments";
import type { ContentAddress, ContentAttachment, MessageContent } from "./message-content";

/**
 * Steps 1–13 of POST /email (docs/contract.md §5.1–§5.13): pure, no I/O. Every step runs and
 * every error is collected, in step order (the order of the request's
 * fields); the HTTP status of the response is that of the first error.
 * Steps 14–16 (domain, suppression, limits) need the database and run in
 * lib/domain/sending/send-email.ts once this passes.
 */

export type ValidationResult =
  | { ok: true; content: MessageContent; /** decoded bodies + attachments */ bytes: number }
  | { ok: false; errors: ApiErrorItem[] };

/** A hostile request cannot make the error list (and the response) huge. */
export const MAX_REPORTED_ERRORS = 100;

type Body = Record<string, unknown>;

class Errors {
  readonly items: ApiErrorItem[] = [];
  add(code: ErrorCode, field?: string) {
    if (this.items.length < MAX_REPORTED_ERRORS) this.items.push(errorItem(code, field));
  }
}

const isAbsent = (v: unknown) => v === undefined || v === null;
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function validateEmailRequest(body: unknown): ValidationResult {
  if (!isPlainObject(body)) return { ok: false, errors: [errorItem(422)] };
  const errors = new Errors();
  const from = checkFrom(body, errors);
  const to = checkList(body, "To", errors, LIST_RULES.To);
  const cc = checkList(body, "CC", errors, LIST_RULES.CC);
  const bcc = checkList(body, "BCC", errors, LIST_RULES.BCC);
  const replyTo = checkList(body, "ReplyTo", errors, LIST_RULES.ReplyTo);
  const subject = checkSubject(body, errors);
  const bodies = checkContent(body, errors);
  const tags = checkTags(body, errors);
  const headers = checkHeaders(body, errors);
  const attachments = checkAttachments(body, errors);
  const bytes = bodies.bytes + attachments.bytes;
  if (bytes > MAX_MESSAGE_BYTES) errors.add(422);
  if (errors.items.length > 0) return { ok: false, errors: errors.items };
  const content: MessageContent = {
    from: from!,
    to,
    cc,
    bcc,
    replyTo,
    subject: subject!,
    contentType: bodies.html !== undefined ? "HTML" : "Text",
    ...(bodies.html !== undefined && { html: bodies.html }),
    ...(bodies.text !== undefined && { text: bodies.text }),
    attachments: attachments.list,
    headers: headers.list,
    tags,
    ...(headers.tracking && { tracking: headers.tracking }),
  };
  return { ok: true, content, bytes };
}

export type SubjectAndBodies = { ok: true; subject: string; html?: string; text?: string } | { ok: false; errors: ApiErrorItem[] };

/**
 * Steps 7–9 alone (Subject, HTMLContent, PlainContent), with the same rules
 * and codes: what a template version must satisfy (lib/domain/templates).
 * A version has no ContentType: it is that of the bodies given, so a version
 * with neither body is code 10 (Missing HTMLContent).
 */
export function validateSubjectAndBodies(body: Record<string, unknown>): SubjectAndBodies {
  const errors = new Errors();
  const subject = checkSubject(body, errors);
  const contentType = isAbsent(body.PlainContent) || body.PlainContent === "" ? "HTML" : "Text";
  const bodies = checkContent({ ...body, ContentType: contentType }, errors);
  if (errors.items.length > 0) return { ok: false, errors: errors.items };
  return { ok: true, subject: subject!, ...(bodies.html !== undefined && { html: bodies.html }), ...(bodies.text !== undefined && { text: bodies.text }) };
}

// Step 2.
function checkFrom(body: Body, errors: Errors): ContentAddress | undefined {
  if (isAbsent(body.From)) {
    errors.add(3, "From");
    return undefined;
  }
  const a = parseAddress(body.From);
  if (a.kind === "not-address") {
    errors.add(3, "From");
    return undefined;
  }
  if (a.nameUnusable) errors.add(2, "From.name");
  if (a.emailState === "missing") errors.add(3, "From.email");
  else if (a.emailState === "invalid") errors.add(23, "From.email");
  return a.nameUnusable || a.emailState !== "ok" ? undefined : { name: a.name, email: a.email };
}

interface ListRule {
  required: boolean;
  notArray: ErrorCode;
  max: number;
  tooMany: ErrorCode;
  notAddress: ErrorCode;
  noEmail: ErrorCode;
  badName: ErrorCode;
  badEmail: ErrorCode;
}

// Steps 3–6.
const LIST_RULES: Record<"To" | "CC" | "BCC" | "ReplyTo", ListRule> = {
  To: { required: true, notArray: 20, max: MAX_TO, tooMany: 20, notAddress: 18, noEmail: 7, badName: 6, badEmail: 19 },
  CC: { required: false, notArray: 422, max: MAX_CC, tooMany: 20, notAddress: 21, noEmail: 21, badName: 21, badEmail: 22 },
  BCC: { required: false, notArray: 24, max: MAX_BCC, tooMany: 27, notAddress: 25, noEmail: 25, badName: 25, badEmail: 26 },
  ReplyTo: { required: false, notArray: 28, max: MAX_REPLY_TO, tooMany: 31, notAddress: 29, noEmail: 5, badName: 4, badEmail: 30 },
};

function checkList(body: Body, key: string, errors: Errors, rule: ListRule): ContentAddress[] {
  const value = body[key];
  if (isAbsent(value) && !rule.required) return [];
  if (!Array.isArray(value) || (rule.required && value.length === 0)) {
    errors.add(rule.notArray, key);
    return [];
  }
  if (value.length > rule.max) {
    // The entries of an over-long list are not examined: the count is the error.
    errors.add(rule.tooMany, key);
    return [];
  }
  const out: ContentAddress[] = [];
  value.forEach((entry, i) => {
    const a = parseAddress(entry);
    if (a.kind === "not-address") return errors.add(rule.notAddress, `${key}[${i}]`);
    if (a.nameUnusable) errors.add(rule.badName, `${key}[${i}].name`);
    if (a.emailState === "missing") errors.add(rule.noEmail, `${key}[${i}].email`);
    else if (a.emailState === "invalid") errors.add(rule.badEmail, `${key}[${i}].email`);
    if (!a.nameUnusable && a.emailState === "ok") out.push({ name: a.name, email: a.email });
  });
  return out;
}

// Step 7.
function checkSubject(body: Body, errors: Errors): string | undefined {
  const s = body.Subject;
  if (isAbsent(s) || (typeof s === "string" && s.trim() === "")) {
    errors.add(8, "Subject");
    return undefined;
  }
  if (typeof s !== "string" || !withinCodePoints(s, MAX_SUBJECT_LENGTH) || !isStorableText(s)) {
    errors.add(422, "Subject");
    return undefined;
  }
  // A line break in a header value would start a new header: fold it to a space.
  return s.replace(/[\r\n]+/g, " ");
}

// Steps 8–9.
function checkContent(body: Body, errors: Errors): { html?: string; text?: string; bytes: number } {
  const ct = body.ContentType;
  let declared: "HTML" | "Text" | undefined;
  if (isAbsent(ct) || ct === "") errors.add(9, "ContentType");
  else if (typeof ct !== "string") errors.add(422, "ContentType");
  else {
    const v = ct.trim().toLowerCase();
    if (v === "html" || v === "text/html") declared = "HTML";
    else if (v === "text" || v === "plain" || v === "text/plain") declared = "Text";
    else errors.add(422, "ContentType");
  }
  const html = bodyText(body, "HTMLContent", errors);
  const text = bodyText(body, "PlainContent", errors);
  if (html === undefined && text === undefined && !errors.items.some((e) => e.Field === "HTMLContent" || e.Field === "PlainContent")) {
    if (declared === "Text") errors.add(11, "PlainContent");
    else errors.add(10, "HTMLContent");
  }
  const bytes = (html ? Buffer.byteLength(html, "utf8") : 0) + (text ? Buffer.byteLength(text, "utf8") : 0);
  return { html, text, bytes };
}

/** A non-empty body, undefined when absent or empty; a non-string is a 422. */
function bodyText(body: Body, key: string, errors: Errors): string | undefined {
  const v = body[key];
  if (isAbsent(v) || v === "") return undefined;
  if (typeof v !== "string" || !isStorableText(v)) {
    errors.add(422, key);
    return undefined;
  }
  return v.trim() === "" ? undefined : v;
}

// Step 10.
function checkTags(body: Body, errors: Errors): string[] {
  const tags = body.Tags;
  if (isAbsent(tags)) return [];
  if (!Array.isArray(tags) || tags.length > MAX_TAGS) {
    errors.add(422, "Tags");
    return [];
  }
  const out: string[] = [];
  tags.forEach((t, i) => {
    if (typeof t !== "string" || !withinCodePoints(t, MAX_TAG_LENGTH) || t.trim() === "" || !isStorableText(t)) errors.add(422, `Tags[${i}]`);
    else out.push(t);
  });
  return out;
}

const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
/** A custom header's name and its value are each at most RFC 5322's line length (998 characters). */
const MAX_HEADER_LENGTH = MAX_LINE_LENGTH;
/** Longer file names are refused: most file systems stop at 255. */
const MAX_FILENAME_LENGTH = 255;
const TRACKING_LOWER = TRACKING_HEADER.toLowerCase();

// Step 11.
function checkHeaders(body: Body, errors: Errors): { list: [string, string][]; tracking?: TrackingMode } {
  const h = body.Headers;
  if (isAbsent(h)) return { list: [] };
  if (!isPlainObject(h)) {
    errors.add(422, "Headers");
    return { list: [] };
  }
  const entries = Object.entries(h);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    errors.add(422, "Headers");
    return { list: [] };
  }
  const list: [string, string][] = [];
  let tracking: TrackingMode | undefined;
  for (const [name, value] of entries) {
    // The name is echoed in the error's Field: never more than the longest valid name.
    const field = `Headers.${name.length > MAX_HEADER_LENGTH ? `${name.slice(0, 64)}…` : name}`;
    if (
      name.length > MAX_HEADER_LENGTH ||
      !FIELD_NAME.test(name) ||
      isOwnedHeader(name) ||
      typeof value !== "string" ||
      value.length > MAX_HEADER_LENGTH ||
      /[\r\n]/.test(value) ||
      !isStorableText(value)
    ) {
      errors.add(422, field);
      continue;
    }
    if (name.toLowerCase() === TRACKING_LOWER) {
      const mode = value.trim().toLowerCase();
      if ((TRACKING_MODES as readonly string[]).includes(mode)) tracking = mode as TrackingMode;
      else errors.add(422, field);
      continue;
    }
    list.push([name, value]);
  }
  return { list, tracking };
}

// Steps 12 (and the attachment half of 13).
function checkAttachments(body: Body, errors: Errors): { list: ContentAttachment[]; bytes: number } {
  const a = body.Attachments;
  if (isAbsent(a)) return { list: [], bytes: 0 };
  if (!Array.isArray(a)) {
    errors.add(422, "Attachments");
    return { list: [], bytes: 0 };
  }
  const list: ContentAttachment[] = [];
  let bytes = 0;
  a.forEach((item, i) => {
    const at = `Attachments[${i}]`;
    if (!isPlainObject(item)) return errors.add(422, at);
    let ok = true;
    const fail = (field: string) => {
      ok = false;
      errors.add(422, `${at}.${field}`);
    };
    const size = typeof item.Content === "string" ? strictBase64Length(item.Content) : undefined;
    if (size === undefined) fail("Content");
    else bytes += size;

    const filename = typeof item.Filename === "string" ? sanitizeFilename(item.Filename) : "";
    if (filename === "" || filename.length > MAX_FILENAME_LENGTH || !isStorableText(filename)) fail("Filename");

    let type: string | undefined;
    if (isAbsent(item.Type) || item.Type === "") type = inferMimeType(filename);
    else if (typeof item.Type === "string" && item.Type.length <= MAX_HEADER_LENGTH && isMimeType(item.Type)) type = item.Type.trim();
    else fail("Type");

    let disposition: "attachment" | "inline" = "attachment";
    if (!isAbsent(item.Disposition) && item.Disposition !== "") {
      const d = typeof item.Disposition === "string" ? item.Disposition.trim().toLowerCase() : "";
      if (d === "attachment" || d === "inline") disposition = d;
      else fail("Disposition");
    }

    const cidKey = Object.hasOwn(item, "ContentId") ? "ContentId" : "ContentID";
    const cidRaw = item[cidKey];
    let contentId: string | undefined;
    if (!isAbsent(cidRaw) && cidRaw !== "") {
      if (cidRaw instanceof JsonNumberText && cidRaw.integerText() !== undefined) contentId = cidRaw.integerText();
      else if (typeof cidRaw === "number" && Number.isSafeInteger(cidRaw)) contentId = String(cidRaw);
      else if (typeof cidRaw === "string" && cidRaw.length <= MAX_HEADER_LENGTH && /^<?[\x21-\x3b\x3d\x3f-\x7e]+>?$/.test(cidRaw.trim())) contentId = cidRaw.trim().replace(/^<|>$/g, "");
      else fail(cidKey);
    }
    if (ok) list.push({ content: item.Content as string, filename, type: type!, disposition, ...(contentId !== undefined && { contentId }) });
  });
  return { list, bytes };
}
