import type { InboundAttemptRow, InboundMessageRow, InboundStatus } from "../../storage/inbound-rows";
import {
  findInboundMessage,
  findInboundRaw,
  findInboundRawById,
  listInboundAttempts,
  listInboundMessages,
  listInboundRepliesTo,
} from "../../storage/inbound-rows";
import type { Database } from "../../storage/database";
import { utf8InTurns } from "../../bytes-in-turns";
import type { ParseGate } from "./parse-gate";
import { attachmentOf } from "./payload";
import { verifyDownloadToken } from "./download-token";

/**
 * Reading received messages (docs/contract.md §13.5), always within one
 * account: another account's message is indistinguishable from none.
 */

export const isUuid = (id: string) => id.length === 36 && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export async function listMessages(
  database: Database,
  accountId: string,
  q: { startFrom: number; retrieveCount: number; fromDate?: Date; toDate?: Date; recipient?: string; status?: InboundStatus },
) {
  return listInboundMessages(database, { accountId, offset: q.startFrom, count: q.retrieveCount, fromDate: q.fromDate, toDate: q.toDate, recipient: q.recipient, status: q.status });
}

/** A message of the account with its attempts; `row.payload` is the posted JSON's text (null before the first post). */
export async function readMessage(
  database: Database,
  accountId: string,
  id: string,
): Promise<{ row: InboundMessageRow & { payload: string | null }; attempts: InboundAttemptRow[] } | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await findInboundMessage(database, accountId, id);
  if (!row) return undefined;
  return { row, attempts: await listInboundAttempts(database, id) };
}

/**
 * A stored payload's JSON text with `members` after its own, as bytes encoded
 * a megabyte per turn: parsing and serializing a 14 MB payload held the event
 * loop ~100 ms (ADR 0803). The payload's members keep jsonb's text.
 */
export function payloadWithMembers(payloadText: string, members: Record<string, unknown>): Promise<Buffer> {
  const close = payloadText.lastIndexOf("}");
  const tail = JSON.stringify(members).slice(1);
  return utf8InTurns(payloadText.slice(0, close), close > 1 ? `, ${tail}` : tail);
}

/** The received replies to an outbound message of the account (its timeline), oldest first; a bounded list. */
export async function repliesTo(database: Database, accountId: string, messageId: string, limit = 50): Promise<InboundMessageRow[]> {
  return isUuid(messageId) ? listInboundRepliesTo(database, accountId, messageId.toLowerCase(), limit) : [];
}

export async function readRaw(database: Database, accountId: string, id: string): Promise<Buffer | undefined> {
  return isUuid(id) ? findInboundRaw(database, accountId, id) : undefined;
}

/**
 * The attachment a signed download token names; undefined when the token is invalid or expired, or the
 * message is gone; "busy" when `gate` turns the parse away (a valid token first: a forged one never waits).
 */
export async function readAttachmentByToken(database: Database, secret: string, token: string, gate: ParseGate) {
  const named = verifyDownloadToken(secret, token);
  if (!named || !isUuid(named.messageId)) return undefined;
  const release = await gate.enter();
  if (!release) return "busy" as const;
  try {
    const raw = await findInboundRawById(database, named.messageId);
    return raw && (await attachmentOf(raw, named.index));
  } finally {
    release();
  }
}

