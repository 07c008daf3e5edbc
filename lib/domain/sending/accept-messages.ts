import { randomUUID } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { errorItem } from "../../contract/errors";
import type { MessageHeaders } from "../../contract/events";
import { announceScheduled } from "./scheduled-sends";
import { enqueueMany, type PgBoss } from "../../queue/boss";
import { packDeliverJobsByAccount, type SizedEntry } from "../../queue/deliver-packing";
import { deliverQueue } from "../../jobs/deliver";
import { insertAcceptedMessages, selectSuppressedPairs, underLimitsSavepoint, type AcceptedMessageRow, type AcceptedRecipientRow } from "../../storage/acceptance-rows";
import { preparedSql } from "../../storage/prepared-sql";
import type { Tx } from "../../storage/transaction";
import type { AuthenticatedKey } from "../accounts/api-keys";
import { emailDomain } from "./email-request/addresses";
import type { ContentAddress, MessageContent } from "./email-request/message-content";
import { estimateMimeSize } from "./email-request/message-record";
import { logEvents, type NewEvent } from "../events/event-log";
import { acceptedAnswer, refusedAnswer, type StoredAnswer } from "./idempotency-key";
import { answerIdempotencyKey, claimIdempotencyKeys, reanswerIdempotencyKeys, releaseIdempotencyKeys, type KeyClaim } from "./idempotency-keys";
import { consumeAccountDay, consumeLimits, type ConsumeResult } from "./limit-counters";
import { accountDailyCeiling, hasLimits, type WindowKind, type WindowUsage } from "./limits";

/**
 * Durable acceptance of validated messages (docs/contract.md §5.15–§5.16
 * and the commit, §5.19), several at once inside the caller's transaction:
 * the messages, their recipients, one `accepted` event per recipient
 * (`rejected` for suppressed ones) and the `deliver` jobs: one entry per message
 * and recipient domain, the entries of the transaction packed into few jobs.
 * The statements are the same for one message or fifty, so a batch costs
 * about what one message costs (docs/adr/0102).
 */

export interface AcceptRecipient extends ContentAddress {
  kind: "to" | "cc" | "bcc";
  /** The suppression list's form of the address. */
  normalized: string;
}

export interface Acceptance {
  messageId: string;
  key: AuthenticatedKey;
  content: MessageContent;
  headers: MessageHeaders;
  /** Deduplicated, To before CC before BCC. */
  recipients: AcceptRecipient[];
  transport: "api" | "smtp";
  /** The message's size when known exactly (a raw MIME submission); else estimated from the content. */
  size?: number;
  requestId?: string;
  /** Unix seconds. */
  now: number;
  /** The request's Idempotency-Key, claimed with this acceptance (docs/adr/0110). */
  idempotency?: { key: string; requestHash: Buffer };
  /** The template version the content was rendered from (docs/adr/0120). */
  template?: { id: number; version: number };
  /**
   * Unix seconds, in the future: a scheduled send (docs/adr/0125). Stored
   * `scheduled` without a deliver job; the release loop enqueues it when due.
   */
  sendAt?: number;
}

/**
 * The Idempotency-Key of a whole POST /email/batch (docs/adr/0126): claimed
 * with the other keys of the transaction, before any limit counter is locked;
 * its answer (the batch's array) is written once every outcome is known.
 */
export interface BatchClaim {
  apiKeyId: string;
  key: string;
  requestHash: Buffer;
  /** The answer the route sends, from the outcomes of the unit's items in order. */
  answer(outcomes: AcceptOutcome[]): StoredAnswer;
}

/** What one caller hands to the group commit: one message (POST /email, SMTP) or a batch's messages with its claim. */
export interface AcceptUnit {
  items: Acceptance[];
  claim?: BatchClaim;
}

export type AcceptOutcome =
  | { ok: true; usages: WindowUsage[] }
  /** Every recipient is suppressed (step 15): nothing stored. */
  | { ok: false; reason: "suppressed" }
  /** A plan limit refused the message (step 16): nothing stored or consumed. */
  | { ok: false; reason: "limit"; refused: WindowKind[] }
  /** Another request holds its Idempotency-Key: nothing stored or consumed. */
  | { ok: false; reason: "duplicate" };

/** What the process knows of limits beyond the key: the instance's account-wide daily ceiling (MAILROOM_ACCOUNT_DAILY_LIMIT; 0: none). */
export interface AcceptPolicy {
  accountDailyLimit: number;
}
const NO_POLICY: AcceptPolicy = { accountDailyLimit: 0 };

/** The units of one transaction: their messages accepted together, each unit's outcomes back in its order. */
export async function acceptUnits(tx: Tx, boss: PgBoss, units: AcceptUnit[], policy: AcceptPolicy = NO_POLICY): Promise<AcceptOutcome[][]> {
  const items = units.flatMap((u) => u.items);
  const batches: UnitClaim[] = [];
  let offset = 0;
  for (const unit of units) {
    if (unit.claim) batches.push({ claim: unit.claim, claimId: randomUUID(), from: offset, to: offset + unit.items.length });
    offset += unit.items.length;
  }
  const outcomes = await acceptMessages(tx, boss, items, batches, policy);
  offset = 0;
  return units.map((u) => outcomes.slice(offset, (offset += u.items.length)));
}

interface UnitClaim {
  claim: BatchClaim;
  /** Identifies the claim in the claiming statement (stored as the key's message_id until its answer is written). */
  claimId: string;
  /** The unit's items: items[from, to). */
  from: number;
  to: number;
}

export async function acceptMessages(
  tx: Tx,
  boss: PgBoss,
  items: Acceptance[],
  batches: UnitClaim[] = [],
  policy: AcceptPolicy = NO_POLICY,
): Promise<AcceptOutcome[]> {
  const outcomes: (AcceptOutcome | undefined)[] = items.map(() => undefined);
  // First, before any counter row is locked: a duplicate consumes nothing.
  const claims = await claimKeysOf(tx, items, outcomes, batches);
  const usages = await consumeLimitsOf(tx, items, outcomes, policy);

  const admitted = items.filter((_, i) => outcomes[i] === undefined);
  const sizes = new Map(admitted.map((item) => [item.messageId, item.size ?? estimateMimeSize(item.content)]));
  const stored = admitted.length > 0 ? await insertMessages(tx, admitted, sizes) : new Map<string, RecipientRow[]>();

  const events: NewEvent[] = [];
  const entries: (SizedEntry & { accountId: string })[] = [];
  items.forEach((item, i) => {
    if (outcomes[i] !== undefined) return;
    const rows = stored.get(item.messageId);
    if (!rows) {
      outcomes[i] = { ok: false, reason: "suppressed" };
      return;
    }
    outcomes[i] = { ok: true, usages: usages.get(i) ?? [] };
    events.push(...eventsOf(item, rows));
    // A scheduled message gets its jobs when it is released (lib/domain/sending/scheduled-sends.ts).
    if (item.sendAt === undefined) entries.push(...deliverEntriesOf(item, rows, sizes.get(item.messageId)!).map((e) => ({ ...e, accountId: item.key.accountId })));
  });
  // The release loops sleep until the earliest SendAt they know: a new one wakes them (NOTIFY is sent at commit).
  if (items.some((item, i) => item.sendAt !== undefined && outcomes[i]?.ok)) await announceScheduled(tx);
  await settleKeysOf(tx, claims, outcomes);
  await answerBatchKeys(tx, batches, outcomes as AcceptOutcome[]);
  await logEvents(tx, boss, events);
  // The transaction's messages share their jobs (docs/adr/0024), an account's with its own (docs/adr/0325).
  const jobs = packDeliverJobsByAccount(entries);
  // Constant text, so prepared once per connection (planning it costs more than running it).
  await enqueueMany(boss, deliverQueue, jobs, preparedSql(tx));
  return outcomes as AcceptOutcome[];
}

/**
 * Step 16 for the messages of limited keys and of accounts with a daily
 * ceiling, in account then key order (so that two transactions lock the
 * counter rows in the same order and never deadlock: an account's own row
 * before its keys' rows). Each message consumes its deliverable recipients
 * under a savepoint: a refusing window rolls back the windows that had
 * admitted it. The counter rows stay locked until commit (limit-counters.ts).
 */
async function consumeLimitsOf(
  tx: Tx,
  items: Acceptance[],
  outcomes: (AcceptOutcome | undefined)[],
  policy: AcceptPolicy,
): Promise<Map<number, WindowUsage[]>> {
  const usages = new Map<number, WindowUsage[]>();
  const ceilingOf = (item: Acceptance) => accountDailyCeiling(item.key.accountDailyLimit, policy.accountDailyLimit);
  const limited = items
    .map((item, i) => ({ item, i, ceiling: ceilingOf(item) }))
    .filter(({ item, i, ceiling }) => outcomes[i] === undefined && (hasLimits(item.key.limits) || ceiling !== null));
  if (limited.length === 0) return usages;
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  limited.sort((a, b) => order(a.item.key.accountId, b.item.key.accountId) || order(a.item.key.keyId, b.item.key.keyId) || a.i - b.i);

  const pairs = limited.flatMap(({ item }) => item.recipients.map((r) => [item.key.accountId, r.normalized] as const));
  const rows = await selectSuppressedPairs(tx, pairs);
  const suppressed = new Set(rows.map((r) => `${r.account_id}|${r.email}`));

  for (const { item, i, ceiling } of limited) {
    const deliverable = item.recipients.filter((r) => !suppressed.has(`${item.key.accountId}|${r.normalized}`)).length;
    if (deliverable === 0) {
      outcomes[i] = { ok: false, reason: "suppressed" };
      continue;
    }
    const consume = async (): Promise<ConsumeResult> => {
      if (ceiling !== null) {
        const account = await consumeAccountDay(tx, item.key.accountId, ceiling, deliverable, item.now);
        if (!account.ok) return account;
      }
      return consumeLimits(tx, item.key.keyId, item.key.limits, deliverable, item.now);
    };
    const consumed = await underLimitsSavepoint(tx, consume, (c) => c.ok);
    if (consumed.ok) usages.set(i, consumed.usages);
    else outcomes[i] = { ok: false, reason: "limit", refused: consumed.refused };
  }
  return usages;
}

/**
 * Claims the Idempotency-Keys of the transaction with a 200 answer, the
 * single messages' and the batches' in one statement (so in one key order);
 * items whose key is held are duplicates, and so is every item of a batch
 * whose key is held. A batch's claim is left out of the returned map.
 */
async function claimKeysOf(
  tx: Tx,
  items: Acceptance[],
  outcomes: (AcceptOutcome | undefined)[],
  batches: UnitClaim[],
): Promise<Map<number, KeyClaim>> {
  const claims = new Map<number, KeyClaim>();
  items.forEach((item, i) => {
    if (!item.idempotency) return;
    const { key, requestHash } = item.idempotency;
    claims.set(i, { apiKeyId: item.key.keyId, key, requestHash, messageId: item.messageId, answer: acceptedAnswer(item.messageId) });
  });
  if (claims.size === 0 && batches.length === 0) return claims;
  // A batch's answer is written once its outcomes are known (answerBatchKeys), in this transaction.
  const batchClaims = batches.map(({ claim, claimId }): KeyClaim => ({
    apiKeyId: claim.apiKeyId,
    key: claim.key,
    requestHash: claim.requestHash,
    messageId: claimId,
    answer: { status: 200, body: "[]" },
  }));
  const won = await claimIdempotencyKeys(tx, [...claims.values(), ...batchClaims]);
  for (const [i, claim] of claims) {
    if (won.has(claim.messageId)) continue;
    outcomes[i] = { ok: false, reason: "duplicate" };
    claims.delete(i);
  }
  for (const b of batches) {
    if (won.has(b.claimId)) continue;
    for (let i = b.from; i < b.to; i++) outcomes[i] = { ok: false, reason: "duplicate" };
  }
  return claims;
}

/** Writes each won batch claim's answer, now that its items' outcomes are known. */
async function answerBatchKeys(tx: Tx, batches: UnitClaim[], outcomes: AcceptOutcome[]): Promise<void> {
  for (const b of batches) {
    const mine = outcomes.slice(b.from, b.to);
    if (mine.some((o) => !o.ok && o.reason === "duplicate")) continue;
    const { apiKeyId, key, requestHash } = b.claim;
    await answerIdempotencyKey(tx, { apiKeyId, key, requestHash, messageId: b.claimId }, b.claim.answer(mine));
  }
}

/**
 * A claim whose message was refused by a limit is released (the answer says
 * "retry later", a replay would contradict it); one whose recipients were
 * all suppressed keeps that refusal as its answer.
 */
async function settleKeysOf(tx: Tx, claims: Map<number, KeyClaim>, outcomes: (AcceptOutcome | undefined)[]): Promise<void> {
  if (claims.size === 0) return;
  const refusedFor = (reason: "limit" | "suppressed") =>
    [...claims].filter(([i]) => {
      const o = outcomes[i];
      return o !== undefined && !o.ok && o.reason === reason;
    }).map(([, claim]) => claim);
  await releaseIdempotencyKeys(tx, refusedFor("limit"));
  await reanswerIdempotencyKeys(tx, refusedFor("suppressed"), refusedAnswer([errorItem(14)]));
}

interface RecipientRow {
  id: number;
  email: string;
  reason: string | null;
}

/** Bytes of message content sent per insert statement when a transaction holds several messages (a 50 MB batch). */
const INSERT_CHUNK_BYTES = 2 * 1024 * 1024;

/**
 * The messages in statements of at most INSERT_CHUNK_BYTES of content (one
 * statement for a transaction of ordinary messages; a message larger than
 * that alone), with a turn of the event loop between two statements: the
 * JSON of a 50 MB batch is never built in one step (docs/adr/0126).
 */
async function insertMessages(tx: Tx, items: Acceptance[], sizes: Map<string, number>): Promise<Map<string, RecipientRow[]>> {
  const byMessage = new Map<string, RecipientRow[]>();
  let chunk: Acceptance[] = [];
  let bytes = 0;
  let statements = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    if (statements++ > 0) await nextTurn();
    for (const [id, rows] of await insertChunk(tx, chunk, sizes)) byMessage.set(id, rows);
    chunk = [];
    bytes = 0;
  };
  for (const item of items) {
    const size = sizes.get(item.messageId)!;
    if (chunk.length > 0 && bytes + size > INSERT_CHUNK_BYTES) await flush();
    chunk.push(item);
    bytes += size;
  }
  await flush();
  return byMessage;
}

/** One statement for every message of the chunk (lib/storage/acceptance-rows.ts); the stored recipients by message id. */
async function insertChunk(tx: Tx, items: Acceptance[], sizes: Map<string, number>): Promise<Map<string, RecipientRow[]>> {
  const messages = items.map((m): AcceptedMessageRow => ({
    id: m.messageId,
    account_id: m.key.accountId,
    api_key_id: m.key.keyId,
    from_email: m.content.from.email,
    from_domain: emailDomain(m.content.from.email),
    subject: m.content.subject,
    headers: m.headers,
    content: m.content,
    tags: m.content.tags,
    size: sizes.get(m.messageId)!,
    transport: m.transport,
    request_id: m.requestId ?? null,
    template_id: m.template?.id ?? null,
    template_version: m.template?.version ?? null,
    send_at: m.sendAt ?? null,
  }));
  const recipients = items.flatMap((m, i) =>
    m.recipients.map((r, n): AcceptedRecipientRow => ({ i, n, message_id: m.messageId, account_id: m.key.accountId, email: r.email, name: r.name, kind: r.kind, normalized: r.normalized })),
  );
  const rows = await insertAcceptedMessages(tx, messages, recipients);
  const byMessage = new Map<string, RecipientRow[]>();
  for (const row of rows) {
    const list = byMessage.get(row.message_id);
    if (list) list.push(row);
    else byMessage.set(row.message_id, [row]);
  }
  return byMessage;
}

function eventsOf(item: Acceptance, rows: RecipientRow[]): NewEvent[] {
  const rowOf = new Map(rows.map((r) => [r.email, r]));
  return item.recipients.map((r): NewEvent => {
    const reason = rowOf.get(r.email)!.reason;
    const base = { accountId: item.key.accountId, messageId: item.messageId, recipient: r.email, loggedAt: item.now };
    return reason !== null
      ? { ...base, type: "rejected", reason: `Recipient is on the suppression list (${reason})`, details: { suppression: reason } }
      : { ...base, type: "accepted", reason: "" };
  });
}

/** The message's deliver entries: one per recipient domain, of its recipients not suppressed. */
function deliverEntriesOf(item: Acceptance, rows: RecipientRow[], size: number): SizedEntry[] {
  const byDomain = new Map<string, number[]>();
  const rowOf = new Map(rows.map((r) => [r.email, r]));
  for (const r of item.recipients) {
    const row = rowOf.get(r.email)!;
    if (row.reason !== null) continue;
    const d = emailDomain(r.email);
    const ids = byDomain.get(d);
    if (ids) ids.push(row.id);
    else byDomain.set(d, [row.id]);
  }
  return [...byDomain.values()].map((recipientIds) => ({
    entry: { messageId: item.messageId, recipientIds, ...(item.requestId && { requestId: item.requestId }) },
    size,
  }));
}
