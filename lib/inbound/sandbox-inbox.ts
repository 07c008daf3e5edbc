import { readRawMessage, type ReadPart } from "../domain/inbound/read-raw";
import type { AppContext } from "../context";
import { buildArfReport } from "./arf";
import { submitReport } from "./submit-report";
import type { Database } from "../storage/database";
import { sandboxRowsPage, sandboxRowWithRaw, type SandboxRow } from "../storage/sandbox-rows";

/**
 * The sandbox inbox, server side (framework-free): what the sandbox MX
 * captured, newest first, with search and paging; one message read in full
 * (headers, HTML, text, attachments, raw source); and "Report as spam",
 * which sends a real ARF complaint through the inbound SMTP server. The
 * dashboard calls these behind its role checks; its unsubscribe button uses
 * the message's own List-Unsubscribe URL (`unsubscribeUrl`).
 */

export interface SandboxListItem {
  id: number;
  receivedAt: string;
  mailFrom: string;
  rcptTo: string[];
  subject: string;
  messageIdHeader: string;
  /** The API's MessageID, when the copy came from this service. */
  messageId: string | null;
  size: number;
}

export interface SandboxList {
  total: number;
  items: SandboxListItem[];
}

export type SandboxAttachment = ReadPart;

export interface SandboxMessage extends SandboxListItem {
  headers: { name: string; value: string }[];
  from: string;
  to: string;
  cc: string;
  replyTo: string;
  date: string | null;
  html: string | null;
  text: string | null;
  attachments: SandboxAttachment[];
  /** The List-Unsubscribe https URL (one-click target and confirmation page). */
  unsubscribeUrl: string | null;
  raw: string;
}

function toItem(r: SandboxRow): SandboxListItem {
  return {
    id: r.id,
    receivedAt: r.received_at.toISOString(),
    mailFrom: r.mail_from,
    rcptTo: r.rcpt_to,
    subject: decodeHeader(r.subject),
    messageIdHeader: r.message_id_header,
    messageId: r.mailroom_message_id,
    size: r.size,
  };
}

/** The first `<http(s)://…>` of a List-Unsubscribe value, read by position (an unanchored regex was quadratic on runs of `<`). */
export function httpTarget(value: string): string | null {
  let gt = -1;
  for (let lt = value.indexOf("<"); lt >= 0; lt = value.indexOf("<", lt + 1)) {
    if (gt <= lt) {
      gt = value.indexOf(">", lt + 1);
      if (gt < 0) return null;
    }
    const start = lt + 1;
    const scheme = value.startsWith("https://", start) ? 8 : value.startsWith("http://", start) ? 7 : 0;
    if (scheme > 0 && gt > start + scheme) return value.slice(start, gt);
  }
  return null;
}

/** RFC 2047 encoded words of a stored Subject (stored as received). */
function decodeHeader(value: string): string {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*/g, (_, charset: string, enc: string, text: string) => {
    try {
      const bytes =
        enc.toUpperCase() === "B"
          ? Buffer.from(text, "base64")
          : Buffer.from(text.replace(/_/g, " ").replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))), "latin1");
      return new TextDecoder(charset.toLowerCase() === "utf-8" ? "utf-8" : charset).decode(bytes);
    } catch {
      return text;
    }
  });
}

export async function listSandboxMessages(
  database: Database,
  options: { search?: string; limit?: number; offset?: number; accountId?: string } = {},
): Promise<SandboxList> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 200);
  const offset = Math.max(Math.trunc(options.offset ?? 0), 0);
  const page = await sandboxRowsPage(database, { search: options.search?.trim(), accountId: options.accountId, limit, offset });
  return { total: page.total, items: page.rows.map(toItem) };
}

/** Scope: with `accountId`, only a capture of that account is found (another account's is "no such message"). */
interface Scope {
  accountId?: string;
}

async function loadRaw(database: Database, id: number, scope: Scope = {}): Promise<(SandboxRow & { raw: Buffer }) | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  return sandboxRowWithRaw(database, id, scope.accountId);
}

export async function readSandboxMessage(database: Database, id: number, scope: Scope = {}): Promise<SandboxMessage | undefined> {
  const row = await loadRaw(database, id, scope);
  if (!row) return undefined;
  const { parsed, headers, html, text, attachments } = await readRawMessage(row.raw);
  const addressText = (a: unknown) => (a && typeof a === "object" && "text" in a ? String((a as { text: string }).text) : "");
  // From the parsed header lines: the whole capture (up to 10 MB) is never decoded and searched for it.
  const unsubscribe = headers.find((h) => h.name.trim().toLowerCase() === "list-unsubscribe")?.value ?? "";
  return {
    ...toItem(row),
    headers,
    from: addressText(parsed.from),
    to: addressText(parsed.to),
    cc: addressText(parsed.cc),
    replyTo: addressText(parsed.replyTo),
    date: parsed.date ? parsed.date.toISOString() : null,
    html,
    text,
    attachments,
    unsubscribeUrl: httpTarget(unsubscribe),
    raw: row.raw.toString("utf8"),
  };
}

/**
 * "Report as spam": the captured copy's recipient complains. An ARF report
 * goes through the inbound SMTP server, exactly like a mailbox provider's
 * feedback loop, and the service logs `complained` (and suppresses).
 */
export async function reportSandboxMessageAsSpam(ctx: AppContext, id: number, scope: Scope = {}): Promise<{ ok: boolean; reason?: string }> {
  const row = await loadRaw(ctx.database, id, scope);
  if (!row) return { ok: false, reason: "No such sandbox message" };
  if (!row.mail_from) return { ok: false, reason: "The message has no return path to report to" };
  const recipient = row.rcpt_to[0]!;
  const reporter = `fbl@${recipient.split("@")[1] ?? "sandbox.invalid"}`;
  const report = buildArfReport({
    original: row.raw,
    originalMailFrom: row.mail_from,
    originalRcptTo: recipient,
    reporter,
    to: row.mail_from,
    userAgent: "Mailroom-Sandbox-Inbox/1.0",
  });
  await submitReport(ctx, report, { from: reporter, to: row.mail_from });
  return { ok: true };
}
