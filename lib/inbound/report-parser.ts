/**
 * Reads DSN bounces (RFC 3464, multipart/report; report-type=delivery-status)
 * and ARF complaints (RFC 5965, report-type=feedback-report) into what the
 * service needs to attribute them. Tolerant: anything unexpected gives
 * `kind: "unknown"`, never an exception.
 */

export interface DsnRecipient {
  /** Final-Recipient (or Original-Recipient) address. */
  recipient: string;
  /** Original-Recipient address, when given (it survives forwarding). */
  originalRecipient: string;
  action: string;
  status: string;
  diagnostic: string;
  remoteMta: string;
}

export interface ParsedReport {
  kind: "dsn" | "arf" | "unknown";
  /** DSN: one entry per recipient block. */
  recipients: DsnRecipient[];
  /** ARF: the complaining recipient and the original envelope sender. */
  feedback?: { type: string; originalRcptTo: string; originalMailFrom: string; userAgent: string };
  /** From the returned original message or its headers. */
  original: { messageId: string; to: string[]; returnPath: string; listUnsubscribe: string };
  subject: string;
}

const FIELD_NAME = /^[A-Za-z0-9-]+$/;

/** The text between the first `<` and the `>` after it that holds anything (`Ann <a@b>` → `a@b`), read by position. */
export function angleAddress(s: string): string | undefined {
  let from = 0;
  for (;;) {
    const lt = s.indexOf("<", from);
    if (lt < 0) return undefined;
    const gt = s.indexOf(">", lt + 1);
    if (gt < 0) return undefined;
    if (gt > lt + 1) return s.slice(lt + 1, gt);
    from = gt + 1;
  }
}

/** RFC 2046: a boundary is 1 to 70 characters. */
const MAX_BOUNDARY_LENGTH = 70;

/** Parses `Name: value` fields of a message/delivery-status or feedback-report body into groups (blank-line separated). */
export function parseFieldGroups(text: string): Map<string, string>[] {
  const groups: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let lastKey = "";
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    if (line.trim() === "") {
      if (current.size) groups.push(current);
      current = new Map();
      lastKey = "";
      continue;
    }
    if (/^[ \t]/.test(line) && lastKey) {
      current.set(lastKey, `${current.get(lastKey)} ${line.trim()}`);
      continue;
    }
    // `Name: value`, read by position: a regex here was quadratic on long lines of white space (linear-time parsing of untrusted input, docs/ARCHITECTURE.md).
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trimEnd() : "";
    if (!FIELD_NAME.test(name)) continue;
    lastKey = name.toLowerCase();
    if (!current.has(lastKey)) current.set(lastKey, line.slice(colon + 1).trim());
  }
  if (current.size) groups.push(current);
  return groups;
}

/** `rfc822; a@b` / `<a@b>` / `a@b` → `a@b`. */
export function addressOf(value: string | undefined): string {
  if (!value) return "";
  const v = value.includes(";") ? value.slice(value.indexOf(";") + 1) : value;
  return v.trim().replace(/^<|>$/g, "").trim();
}

function headersOf(text: string): Map<string, string> {
  const end = text.search(/\r?\n\r?\n/);
  return parseFieldGroups(end >= 0 ? text.slice(0, end) : text)[0] ?? new Map();
}

interface MimePart {
  contentType: string;
  params: Record<string, string>;
  headers: Map<string, string>;
  body: Buffer;
}

export function splitHead(raw: Buffer): { head: string; body: Buffer } {
  const text = raw.toString("latin1");
  const m = /\r?\n\r?\n/.exec(text);
  if (!m) return { head: text, body: Buffer.alloc(0) };
  return { head: text.slice(0, m.index), body: raw.subarray(m.index + m[0].length) };
}

export function parseContentType(value: string | undefined): { type: string; params: Record<string, string> } {
  const [type, ...rest] = (value ?? "text/plain").split(";");
  const params: Record<string, string> = {};
  for (const p of rest) {
    const m = /^\s*([A-Za-z0-9*_.-]+)\s*=\s*(?:"([^"]*)"|([^\s;]*))/.exec(p);
    if (m) params[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? "";
  }
  return { type: type!.trim().toLowerCase(), params };
}

export function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  const enc = (encoding ?? "").trim().toLowerCase();
  if (enc === "base64") return Buffer.from(body.toString("latin1").replace(/[^A-Za-z0-9+/=]/g, ""), "base64");
  if (enc === "quoted-printable") {
    const text = body.toString("latin1").replace(/=\r?\n/g, "");
    return Buffer.from(text.replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))), "latin1");
  }
  return body;
}

/** The parts of a multipart entity (one level), or none. */
export function splitMultipart(raw: Buffer): { contentType: string; params: Record<string, string>; parts: MimePart[] } {
  const { head, body } = splitHead(raw);
  const headers = parseFieldGroups(head)[0] ?? new Map<string, string>();
  const { type, params } = parseContentType(headers.get("content-type"));
  const parts: MimePart[] = [];
  const boundary = params.boundary;
  if (type.startsWith("multipart/") && boundary && boundary.length <= MAX_BOUNDARY_LENGTH) {
    const text = body.toString("latin1");
    const delimiter = `--${boundary}`;
    const chunks = text.split(new RegExp(`(?:^|\\r?\\n)${delimiter.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    for (const chunk of chunks.slice(1)) {
      if (chunk.startsWith("--")) break;
      const partRaw = Buffer.from(chunk.replace(/^[ \t]*\r?\n/, ""), "latin1");
      const split = splitHead(partRaw);
      const h = parseFieldGroups(split.head)[0] ?? new Map<string, string>();
      const ct = parseContentType(h.get("content-type"));
      parts.push({ contentType: ct.type, params: ct.params, headers: h, body: decodeBody(split.body, h.get("content-transfer-encoding")) });
    }
  }
  return { contentType: type, params, parts };
}

/**
 * What of a report is read: its status or feedback part and the returned
 * original's header come first, and a report is up to the inbound SMTP
 * server's message size (10 MB), which the regular expressions and copies
 * below would walk whole on the event loop of the server that received it.
 * Reading a prefix makes one report's cost a constant, whatever its sender
 * returned of the original (docs/adr/0807).
 */
export const REPORT_READ_BYTES = 256 * 1024;

export async function parseReport(whole: Buffer): Promise<ParsedReport> {
  const raw = whole.length > REPORT_READ_BYTES ? whole.subarray(0, REPORT_READ_BYTES) : whole;
  const out: ParsedReport = { kind: "unknown", recipients: [], original: { messageId: "", to: [], returnPath: "", listUnsubscribe: "" }, subject: "" };
  let top;
  try {
    top = splitMultipart(raw);
    out.subject = (parseFieldGroups(splitHead(raw).head)[0]?.get("subject") ?? "").trim();
  } catch {
    return out;
  }
  const reportType = (top.params["report-type"] ?? "").toLowerCase();
  if (top.contentType !== "multipart/report") return out;
  const find = (...types: string[]) => top.parts.find((p) => types.includes(p.contentType));

  const originalPart = find("message/rfc822", "text/rfc822-headers", "message/rfc822-headers", "message/global", "message/global-headers");
  if (originalPart) {
    const h = headersOf(originalPart.body.toString("utf8"));
    out.original.messageId = (h.get("message-id") ?? "").replace(/^<|>$/g, "").trim();
    out.original.to = (h.get("to") ?? "")
      .split(",")
      .map((s) => angleAddress(s) ?? s.trim())
      .filter((s) => s.includes("@"));
    out.original.returnPath = addressOf(h.get("return-path"));
    out.original.listUnsubscribe = h.get("list-unsubscribe") ?? "";
  }

  const status = find("message/delivery-status", "message/global-delivery-status");
  if (status && reportType !== "feedback-report") {
    out.kind = "dsn";
    const groups = parseFieldGroups(status.body.toString("utf8"));
    for (const g of groups.slice(1).length ? groups.slice(1) : groups) {
      const recipient = addressOf(g.get("final-recipient") ?? g.get("original-recipient"));
      if (!recipient) continue;
      out.recipients.push({
        recipient,
        originalRecipient: addressOf(g.get("original-recipient")),
        action: (g.get("action") ?? "").toLowerCase(),
        status: g.get("status") ?? "",
        diagnostic: (g.get("diagnostic-code") ?? "").replace(/^smtp;\s*/i, ""),
        remoteMta: addressOf(g.get("remote-mta")),
      });
    }
    return out;
  }

  const feedback = find("message/feedback-report");
  if (feedback && reportType !== "delivery-status") {
    out.kind = "arf";
    const g = parseFieldGroups(feedback.body.toString("utf8"))[0] ?? new Map<string, string>();
    out.feedback = {
      type: (g.get("feedback-type") ?? "abuse").toLowerCase(),
      originalRcptTo: addressOf(g.get("original-rcpt-to")),
      originalMailFrom: addressOf(g.get("original-mail-from")),
      userAgent: g.get("user-agent") ?? "",
    };
  }
  return out;
}
