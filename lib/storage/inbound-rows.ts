import { concatInTurns } from "../bytes-in-turns";
import type { Queryable } from "./database";
import { dayTableName, partitionIdent } from "./day-partitions";
import { statementName } from "./prepared-sql";
import { isRowDataError, sqlStateOf } from "./sqlstate";

/**
 * SQL of the inbound tables (migration 0900, docs/contract.md §13). Every
 * read that a client can reach is scoped to its account: another account's
 * route or message is indistinguishable from a missing one.
 */

export interface InboundRouteRow {
  id: number;
  account_id: string;
  match: string;
  webhook_url: string;
  created_at: Date;
}

export async function insertInboundRoute(q: Queryable, row: { accountId: string; match: string; webhookUrl: string }): Promise<InboundRouteRow | undefined> {
  const { rows } = await q.query<InboundRouteRow>(
    `INSERT INTO inbound_routes (account_id, match, webhook_url) VALUES ($1, $2, $3)
     ON CONFLICT (match) DO NOTHING RETURNING *`,
    [row.accountId, row.match, row.webhookUrl],
  );
  return rows[0];
}

export async function listInboundRoutes(q: Queryable, accountId: string): Promise<InboundRouteRow[]> {
  const { rows } = await q.query<InboundRouteRow>("SELECT * FROM inbound_routes WHERE account_id = $1 ORDER BY id", [accountId]);
  return rows;
}

export async function deleteInboundRoute(q: Queryable, accountId: string, id: number): Promise<boolean> {
  const { rowCount } = await q.query("DELETE FROM inbound_routes WHERE id = $1 AND account_id = $2", [id, accountId]);
  return (rowCount ?? 0) > 0;
}

/** The routes whose match is one of `matches` (any account: the SMTP server decides whose mail it is). */
export async function findRoutesByMatch(q: Queryable, matches: string[]): Promise<InboundRouteRow[]> {
  if (matches.length === 0) return [];
  const { rows } = await q.query<InboundRouteRow>({
    name: "mailroom_inbound_routes_by_match",
    text: "SELECT * FROM inbound_routes WHERE match = ANY($1::text[])",
    values: [matches],
  });
  return rows;
}

/** Whether `domain` is a verified sending domain of the account. */
export async function isVerifiedDomainOf(q: Queryable, accountId: string, domain: string): Promise<boolean> {
  const { rows } = await q.query("SELECT 1 FROM sender_domains WHERE account_id = $1 AND lower(name) = $2 AND status = 'verified'", [accountId, domain]);
  return rows.length > 0;
}

/** Whether `domain` is a sending domain of any account (its `bounces.` subdomain receives reports). */
export async function isSenderDomain(q: Queryable, domain: string): Promise<boolean> {
  const { rows } = await q.query({ name: "mailroom_inbound_is_sender_domain", text: "SELECT 1 FROM sender_domains WHERE lower(name) = $1 LIMIT 1", values: [domain] });
  return rows.length > 0;
}

export interface NewInboundMessage {
  id: string;
  accountId: string;
  routeId: number;
  webhookUrl: string;
  originalRecipient: string;
  mailboxHash: string;
  /** Every recipient of the route in the transaction (the first is originalRecipient). */
  recipients: { Email: string; MailboxHash: string }[];
  mailFrom: string;
  remoteIp: string;
  helo: string;
  /** The message's size; `raw` is empty on a row that names the one holding it (rawOf). */
  size: number;
  raw: Buffer;
  /** The row of the same transaction (and so of the same received_at) that holds the raw MIME. */
  rawOf?: string;
  /** The time it was received: also the day table it is filed in (docs/adr/0041). */
  receivedAt: Date;
  expiresAt: Date;
}

/** Rows per INSERT statement, and raw bytes: a few statements per group commit, none of them huge. */
const INSERT_MAX_ROWS = 500;
const INSERT_MAX_BYTES = 8 * 1024 * 1024;
const PREPARED_MAX_ROWS = 16;

const INSERT_INBOUND_MESSAGES = `INSERT INTO inbound_messages (id, account_id, route_id, webhook_url, original_recipient, mailbox_hash, mail_from, remote_ip, helo, size, raw, expires_at, received_at, recipients, raw_of, next_attempt_at)
       VALUES`;

/** How many of `messages`, from `start`, one INSERT takes (at least one). */
function rowsOfOneInsert(messages: NewInboundMessage[], start: number): number {
  let end = start + 1;
  let bytes = messages[start]!.raw.length;
  while (end < messages.length && end - start < INSERT_MAX_ROWS && bytes + messages[end]!.raw.length <= INSERT_MAX_BYTES) bytes += messages[end++]!.raw.length;
  return end - start;
}

/** Where m.routeId, m.recipients and m.rawOf are among a row's values (valuesOf), as their columns are among INSERT_INBOUND_MESSAGES'. */
const ROUTE_ID_VALUE = 2;
const RECIPIENTS_VALUE = 13;
const RAW_OF_VALUE = 14;

/** The VALUES tuples of `messages`, their values appended to `values` (placeholders numbered after those already there). */
function valuesOf(messages: NewInboundMessage[], values: unknown[]): string {
  const tuples = messages.map((m) => {
    const at = values.length;
    values.push(m.id, m.accountId, m.routeId, m.webhookUrl, m.originalRecipient, m.mailboxHash, m.mailFrom, m.remoteIp, m.helo, m.size, m.raw, m.expiresAt, m.receivedAt, JSON.stringify(m.recipients), m.rawOf ?? null);
    const p = Array.from({ length: 15 }, (_, i) => `$${at + i + 1}`);
    p[RECIPIENTS_VALUE] = `${p[RECIPIENTS_VALUE]}::jsonb`;
    p[RAW_OF_VALUE] = `${p[RAW_OF_VALUE]}::uuid`;
    // The route as it is now: a route deleted since the session matched it (its DELETE committed, or committing
    // while this waits for its lock) gives NULL, as ON DELETE SET NULL does for the messages stored before it,
    // instead of a foreign-key error that would fail every session of the group commit. A route still there is
    // key-share locked, so its DELETE waits for this commit and then sets these rows' route_id to NULL too.
    p[ROUTE_ID_VALUE] = `(SELECT r.id FROM inbound_routes r WHERE r.id = ${p[ROUTE_ID_VALUE]} FOR KEY SHARE)`;
    return `(${p.join(", ")}, now())`;
  });
  return tuples.join(", ");
}

/**
 * The rows of a group commit in as few statements as the bounds allow (one
 * round trip each), instead of one per row.
 */
export async function insertInboundMessages(q: Queryable, messages: NewInboundMessage[]): Promise<void> {
  for (let start = 0; start < messages.length; ) {
    const end = start + rowsOfOneInsert(messages, start);
    const values: unknown[] = [];
    const text = `${INSERT_INBOUND_MESSAGES} ${valuesOf(messages.slice(start, end), values)}`;
    // Prepared for the group sizes a busy server makes (planning cost a fifth of running it); larger ones
    // are rare and would each keep a plan on every connection.
    await q.query(end - start <= PREPARED_MAX_ROWS ? { name: statementName(text), text, values } : { text, values });
    start = end;
  }
}

/** Channel that wakes the posting loops when a message is committed (NOTIFY is transactional). */
export const INBOUND_WAKE_CHANNEL = "mailroom_inbound";

const WAKE_INBOUND_POSTING = `SELECT pg_notify('${INBOUND_WAKE_CHANNEL}', '')`;

/** Wakes the posting loops when the caller's transaction commits. */
export async function wakeInboundPosting(q: Queryable): Promise<void> {
  await q.query(WAKE_INBOUND_POSTING);
}

export type InboundStatus = "pending" | "delivered" | "failed";

/** A message without its raw MIME (lists, details). */
export interface InboundMessageRow {
  id: string;
  account_id: string;
  route_id: number | null;
  webhook_url: string;
  original_recipient: string;
  mailbox_hash: string;
  /** Every recipient of the route in its transaction; null on rows stored before migration 1006 (one recipient each). */
  recipients: { Email: string; MailboxHash: string }[] | null;
  mail_from: string;
  remote_ip: string;
  helo: string;
  subject: string;
  from_email: string;
  size: number;
  payload: unknown;
  replied_to_message_id: string | null;
  status: InboundStatus;
  attempts: number;
  next_attempt_at: Date | null;
  received_at: Date;
  expires_at: Date;
}

/** The posted JSON's text: as posted since migration 1005, jsonb's text for rows stored before (docs/adr/0046). */
const payloadText = (alias = "") => `COALESCE(${alias}payload_text, ${alias}payload::text) AS payload`;

const MESSAGE_COLUMNS = `id, account_id, route_id, webhook_url, original_recipient, mailbox_hash, recipients, mail_from, remote_ip, helo, subject, from_email,
  size, payload, replied_to_message_id, status, attempts, next_attempt_at, received_at, expires_at`;

/** A message of the account, `payload` as its JSON text (or null before its first post): read back, never parsed here. */
export async function findInboundMessage(q: Queryable, accountId: string, id: string): Promise<(InboundMessageRow & { payload: string | null }) | undefined> {
  const { rows } = await q.query<InboundMessageRow & { payload: string | null }>(
    `SELECT ${MESSAGE_COLUMNS.replace("payload", payloadText())} FROM inbound_messages WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return rows[0];
}

/**
 * A message's raw MIME: its own, or that of the row of its transaction that
 * holds it (raw_of, the same received_at: one day table). Undefined when
 * the message is not there, or its holder has gone first (both expire together).
 */
const RAW_OF_MESSAGE = `SELECT CASE WHEN m.raw_of IS NULL THEN m.raw ELSE h.raw END AS raw
   FROM inbound_messages m LEFT JOIN inbound_messages h ON h.id = m.raw_of AND h.received_at = m.received_at`;

export async function findInboundRaw(q: Queryable, accountId: string, id: string): Promise<Buffer | undefined> {
  const { rows } = await q.query<{ raw: Buffer | null }>(`${RAW_OF_MESSAGE} WHERE m.id = $1 AND m.account_id = $2`, [id, accountId]);
  return rows[0]?.raw ?? undefined;
}

/** Raw MIME read in pieces of this many bytes: bytea arrives as hex text, and one 10 MB read would be decoded in one block. */
const RAW_PIECE_BYTES = 1024 * 1024;

/**
 * A message by id, and the day it was received when known: the posting path's
 * statements carry the bounds of that day, so that PostgreSQL prunes them to
 * its one day table instead of probing the id index of every day of
 * retention (docs/adr/0041). Unknown (a job enqueued before the day was
 * carried), the bounds are infinite and every table is probed.
 */
export interface InboundKey {
  id: string;
  receivedAt?: Date;
}

const DAY_MS = 86_400_000;

function dayBoundsOf(receivedAt: Date | undefined): [Date | string, Date | string] {
  if (!receivedAt) return ["-infinity", "infinity"];
  const start = receivedAt.getTime() - (((receivedAt.getTime() % DAY_MS) + DAY_MS) % DAY_MS);
  return [new Date(start), new Date(start + DAY_MS)];
}

const LOAD_COLUMNS = `${MESSAGE_COLUMNS.replace(/(\w+)/g, "m.$1").replace("m.payload", payloadText("m."))},
            CASE WHEN m.size <= ${RAW_PIECE_BYTES} AND m.raw_of IS NULL THEN m.raw END AS raw, m.raw_of, a.webhook_signing_key AS signing_key`;

export const LOAD_FOR_POST = `SELECT ${LOAD_COLUMNS}
       FROM inbound_messages m JOIN accounts a ON a.id = m.account_id WHERE m.id = $1 AND m.received_at >= $2 AND m.received_at < $3`;

/**
 * The day table a message received at `receivedAt` is in, when that day's
 * table was made before it (the hourly maintenance makes them days ahead;
 * otherwise it is in the default table until moved). A statement on it plans
 * in a tenth of the time of one on the parent, whose custom plan weighs every
 * day table before pruning them (measured: 0.06 ms against 0.64 ms).
 */
export function dayTableOf(receivedAt: Date): string {
  return partitionIdent("inbound_messages", dayTableName("inbound_messages", Math.floor(receivedAt.getTime() / DAY_MS) * 86_400));
}

/** undefined_table: the day's table was never made (the row is in the default table) or has been dropped. */
export const UNDEFINED_TABLE = "42P01";

/**
 * A statement on the message's day table, then, when that table does not
 * exist or does not hold it, the same on the parent (the default table, a
 * table moved since). Never inside a transaction: the missing table's error
 * would abort it.
 */
async function onDayTableFirst<R extends { rowCount: number | null }>(receivedAt: Date | undefined, onDay: (table: string) => Promise<R>, onParent: () => Promise<R>): Promise<R> {
  if (receivedAt) {
    try {
      const result = await onDay(dayTableOf(receivedAt));
      if ((result.rowCount ?? 0) > 0) return result;
    } catch (err) {
      if (sqlStateOf(err) !== UNDEFINED_TABLE) throw err;
    }
  }
  return onParent();
}

/** A row as the posting job loads it: `raw` null when it is read in pieces (withWholeRaw), from the row `raw_of` names when set. */
export type LoadedInboundRow = InboundMessageRow & { payload: string | null; raw: Buffer | null; raw_of: string | null; signing_key: string };
/** What the posting job needs: the row (`payload` as its JSON text), its raw MIME and the account's signing key. */
export type InboundForPost = InboundMessageRow & { payload: string | null; raw: Buffer; signing_key: string };

/** The statement that loads a batch of rows from one day table (lib/storage/inbound-post-batches.ts). */
export const loadFromDayTableSql = (table: string) => `SELECT ${LOAD_COLUMNS} FROM ${table} m JOIN accounts a ON a.id = m.account_id WHERE m.id = ANY($1::uuid[])`;

export async function loadInboundForPost(q: Queryable, key: InboundKey): Promise<InboundForPost | undefined> {
  const row = await loadInboundRowForPost(q, key);
  return row && withWholeRaw(q, row, key);
}

/** The row alone: from its day table first, else from the parent (onDayTableFirst). */
export async function loadInboundRowForPost(q: Queryable, key: InboundKey, dayTableTried = false): Promise<LoadedInboundRow | undefined> {
  const [from_, to] = dayBoundsOf(key.receivedAt);
  const { rows } = await onDayTableFirst(
    dayTableTried ? undefined : key.receivedAt,
    (table) => q.query<LoadedInboundRow>(`SELECT ${LOAD_COLUMNS} FROM ${table} m JOIN accounts a ON a.id = m.account_id WHERE m.id = $1`, [key.id]),
    () => q.query<LoadedInboundRow>({ name: "mailroom_inbound_for_post", text: LOAD_FOR_POST, values: [key.id, from_, to] }),
  );
  return rows[0];
}

/**
 * The row with its raw MIME: a message over RAW_PIECE_BYTES, or one whose raw
 * another row of its transaction holds (same received_at), is read in pieces,
 * one statement each. Undefined when it is gone meanwhile.
 */
export async function withWholeRaw(q: Queryable, row: LoadedInboundRow, key: InboundKey): Promise<InboundForPost | undefined> {
  if (row.raw) return { ...row, raw: row.raw };
  const [from_, to] = dayBoundsOf(key.receivedAt ?? row.received_at);
  const holder = row.raw_of ?? key.id;
  const pieces: Buffer[] = [];
  for (let from = 0; from < row.size; from += RAW_PIECE_BYTES) {
    const piece = await q.query<{ raw: Buffer }>(
      "SELECT substring(raw FROM $2 FOR $3) AS raw FROM inbound_messages WHERE id = $1 AND received_at >= $4 AND received_at < $5",
      [holder, from + 1, RAW_PIECE_BYTES, from_, to],
    );
    if (!piece.rows[0]) return undefined;
    pieces.push(piece.rows[0].raw);
  }
  return { ...row, raw: await concatInTurns(pieces) };
}

/** The JSON of a message's first post and the list fields taken from it, stored with that attempt's record. */
export interface PayloadToSave {
  payloadJson: Buffer;
  subject: string;
  fromEmail: string;
  repliedToMessageId: string | null;
}

export interface InboundAttemptRow {
  id: number;
  attempted_at: Date;
  duration_ms: number;
  status_code: number;
  body: string;
  error: string | null;
}

/** The message's update, then its attempt's insert from the row updated: a message gone leaves no attempt behind. */
const recordAttemptSql = (table: string, set: string, where: string) =>
  `WITH m AS (UPDATE ${table} SET attempts = attempts + 1, status = $7, next_attempt_at = $8${set} WHERE id = $1${where} RETURNING id)
   INSERT INTO inbound_attempts (inbound_message_id, attempted_at, duration_ms, status_code, body, error)
   SELECT m.id, $2::timestamptz, $3::int, $4::int, $5::text, $6::text FROM m`;
const WITH_PAYLOAD = `,
       payload_text = COALESCE(payload_text, convert_from($9::bytea, 'UTF8')), subject = $10, from_email = $11, replied_to_message_id = $12::uuid`;

/**
 * Records one POST and the message's new state, in one statement (its insert
 * and update in one WITH: atomic without BEGIN and COMMIT). The first post
 * also stores the JSON it sent (`payload`, when given and none is stored
 * yet), so a message is one update per attempt, not two (docs/adr/0801).
 * Outside a transaction it goes to the message's day table first (dayTableOf);
 * `inTransaction` (no default: a caller says which) sends it to the parent only,
 * since a missing table's error would abort the transaction.
 */
export async function recordInboundAttempt(
  q: Queryable,
  inTransaction: boolean,
  key: InboundKey,
  attempt: { startedAt: Date; durationMs: number; statusCode: number; body: string; error?: string },
  state: { status: InboundStatus; nextAttemptAt: Date | null },
  payload?: PayloadToSave,
): Promise<void> {
  const [from, to] = dayBoundsOf(key.receivedAt);
  const values: unknown[] = [key.id, attempt.startedAt, Math.round(attempt.durationMs), attempt.statusCode, snippet(attempt.body), attempt.error ?? null, state.status, state.nextAttemptAt];
  // The JSON's UTF-8 bytes go as a binary parameter: one copy into the wire buffer, where a
  // 14 MB string took two passes (its length, then its encoding) on the event loop.
  if (payload) values.push(payload.payloadJson, payload.subject, payload.fromEmail, payload.repliedToMessageId);
  const set = payload ? WITH_PAYLOAD : "";
  const bounds = `AND received_at >= $${values.length + 1} AND received_at < $${values.length + 2}`;
  const onParent = () =>
    q.query({ name: payload ? "mailroom_inbound_attempt_with_payload" : "mailroom_inbound_attempt", text: recordAttemptSql("inbound_messages", set, ` ${bounds}`), values: [...values, from, to] });
  await onDayTableFirst(inTransaction ? undefined : key.receivedAt, (table) => q.query(recordAttemptSql(table, set, ""), values), onParent);
}

/**
 * The first attempt, with the JSON it posted. Should PostgreSQL refuse the
 * JSON (a row data error: it is made storable when built, so this is for the
 * unforeseen), the attempt already made is recorded without it, its error
 * saying so, rather than lost (docs/adr/0801). In a transaction, a savepoint
 * keeps the transaction usable for that fallback.
 */
export async function recordFirstInboundAttempt(
  q: Queryable,
  inTransaction: boolean,
  key: InboundKey,
  attempt: Parameters<typeof recordInboundAttempt>[3],
  state: Parameters<typeof recordInboundAttempt>[4],
  payload: PayloadToSave,
): Promise<void> {
  try {
    if (inTransaction) await q.query("SAVEPOINT inbound_payload");
    await recordInboundAttempt(q, inTransaction, key, attempt, state, payload);
    if (inTransaction) await q.query("RELEASE SAVEPOINT inbound_payload");
  } catch (err) {
    if (!isRowDataError(err)) throw err;
    if (inTransaction) await q.query("ROLLBACK TO SAVEPOINT inbound_payload");
    const refused = `the posted JSON could not be stored (${(err as Error).message.slice(0, 200)})`;
    await recordInboundAttempt(q, inTransaction, key, { ...attempt, error: attempt.error ? `${attempt.error}; ${refused}` : refused }, state);
  }
}

/** At most 4 KB of UTF-8, cut at a character boundary. */
export function snippet(text: string, maxBytes = 4096): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = Buffer.from(text).subarray(0, maxBytes).toString("utf8");
  while (Buffer.byteLength(out) > maxBytes || out.endsWith("\uFFFD")) out = out.slice(0, -1);
  return out;
}

export async function listInboundAttempts(q: Queryable, id: string): Promise<InboundAttemptRow[]> {
  const { rows } = await q.query<InboundAttemptRow>(
    "SELECT id, attempted_at, duration_ms, status_code, body, error FROM inbound_attempts WHERE inbound_message_id = $1 ORDER BY id",
    [id],
  );
  return rows;
}

/**
 * A post counts as lost (its job gone: the queue gave up on a worker that kept
 * failing) when it has been due this long; a retry then posts it again.
 */
const POST_LOST_AFTER = "1 hour";

/**
 * Puts a message back to pending, due now, unless a post of it is already
 * due or running (pending, due at or before this moment, not lost):
 * `marked` false then, nothing to enqueue. Concurrent retries serialise on
 * the row, and the later sees the earlier's due time (clock_timestamp, not
 * its own transaction's start), so one of them marks it. Undefined when the
 * account has no such message.
 */
export async function markForRetry(q: Queryable, accountId: string, id: string): Promise<{ marked: boolean; attempts: number; receivedAt: Date } | undefined> {
  const { rows } = await q.query<{ marked: boolean; attempts: number; received_at: Date }>(
    `WITH target AS (SELECT id, received_at, attempts FROM inbound_messages WHERE id = $1 AND account_id = $2),
          marked AS (
            UPDATE inbound_messages m SET status = 'pending', next_attempt_at = now()
              FROM target WHERE m.id = target.id AND m.received_at = target.received_at
               AND (m.status <> 'pending' OR m.next_attempt_at IS NULL OR m.next_attempt_at > clock_timestamp()
                    OR m.next_attempt_at < clock_timestamp() - interval '${POST_LOST_AFTER}')
            RETURNING m.attempts)
     SELECT EXISTS (SELECT 1 FROM marked) AS marked, coalesce((SELECT attempts FROM marked), target.attempts) AS attempts, target.received_at FROM target`,
    [id, accountId],
  );
  const row = rows[0];
  return row && { marked: row.marked, attempts: row.attempts, receivedAt: row.received_at };
}

export interface InboundListFilter {
  accountId: string;
  count: number;
  offset: number;
  /** Received at or after / before (inclusive / exclusive). */
  fromDate?: Date;
  toDate?: Date;
  recipient?: string;
  status?: InboundStatus;
}

/** The account's messages, newest first, with the total that matched. */
export async function listInboundMessages(q: Queryable, f: InboundListFilter): Promise<{ total: number; rows: InboundMessageRow[] }> {
  const where = ["account_id = $1"];
  const values: unknown[] = [f.accountId];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    where.push(sql.replaceAll("?", `$${values.length}`));
  };
  if (f.fromDate) add("received_at >= ?", f.fromDate);
  if (f.toDate) add("received_at < ?", f.toDate);
  // Any recipient of the message (its transaction's for the route, migration 1006), the first one on older rows.
  if (f.recipient) add("(lower(original_recipient) = ? OR EXISTS (SELECT 1 FROM jsonb_array_elements(recipients) r WHERE lower(r->>'Email') = ?))", f.recipient.toLowerCase());
  if (f.status) add("status = ?", f.status);
  const clause = where.join(" AND ");
  const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_messages WHERE ${clause}`, values);
  const { rows } = await q.query<InboundMessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM inbound_messages WHERE ${clause} ORDER BY received_at DESC, id DESC LIMIT ${f.count} OFFSET ${f.offset}`,
    values,
  );
  return { total: total.rows[0]!.n, rows };
}

/** The account's received messages that answer the outbound message `messageId`, oldest first (at most `limit`). */
export async function listInboundRepliesTo(q: Queryable, accountId: string, messageId: string, limit: number): Promise<InboundMessageRow[]> {
  const { rows } = await q.query<InboundMessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM inbound_messages WHERE account_id = $1 AND replied_to_message_id = $2 ORDER BY received_at, id LIMIT ${limit}`,
    [accountId, messageId],
  );
  return rows;
}

/** Deletes messages past their expiry and their attempts (no foreign key carries them, docs/adr/0041), at most `limit` per call. */
export async function purgeExpiredInbound(q: Queryable, now: Date, limit = 1000): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `WITH gone AS (DELETE FROM inbound_messages WHERE id IN (SELECT id FROM inbound_messages WHERE expires_at <= $1 LIMIT $2) RETURNING id),
          attempts AS (DELETE FROM inbound_attempts WHERE inbound_message_id IN (SELECT id FROM gone))
     SELECT count(*)::int AS n FROM gone`,
    [now, limit],
  );
  return rows[0]?.n ?? 0;
}

/** Whether a day table of inbound_messages holds a message that has not expired at `now` (its expires_at index answers). */
export async function inboundPartitionHoldsUnexpired(q: Queryable, partition: string, now: Date): Promise<boolean> {
  const ident = partitionIdent("inbound_messages", partition);
  const { rows } = await q.query<{ held: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${ident} WHERE expires_at > $1) AS held`, [now]);
  return rows[0]!.held;
}

/**
 * Deletes the attempts of every message of a day table of inbound_messages
 * (one about to be dropped, or left detached), 1,000 messages at a time in
 * id order; returns how many messages the table holds.
 */
export async function deleteAttemptsOfInboundPartition(q: Queryable, partition: string): Promise<number> {
  const ident = partitionIdent("inbound_messages", partition);
  let after = "00000000-0000-0000-0000-000000000000";
  let messages = 0;
  for (;;) {
    const { rows } = await q.query<{ n: number; last: string | null }>(
      `WITH ids AS (SELECT id FROM ${ident} WHERE id > $1 ORDER BY id LIMIT 1000),
            gone AS (DELETE FROM inbound_attempts WHERE inbound_message_id IN (SELECT id FROM ids))
       SELECT count(*)::int AS n, max(id::text) AS last FROM ids`,
      [after],
    );
    messages += rows[0]!.n;
    if (rows[0]!.n < 1000 || !rows[0]!.last) return messages;
    after = rows[0]!.last;
  }
}

/**
 * The outbound message (of the account) that one of `references` names:
 * Mailroom's Message-ID header is `<MessageID@from-domain>`.
 */
export async function findRepliedMessage(q: Queryable, accountId: string, references: { id: string; domain: string }[]): Promise<string | undefined> {
  if (references.length === 0) return undefined;
  const { rows } = await q.query<{ id: string }>(
    `SELECT m.id FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, domain text, ord int)
       JOIN messages m ON m.id = r.id AND lower(m.from_domain) = r.domain AND m.account_id = $1
      ORDER BY r.ord LIMIT 1`,
    [accountId, JSON.stringify(references.map((r, ord) => ({ ...r, ord })))],
  );
  return rows[0]?.id;
}

/** `id` when it is a message of the account (a per-message reply address names it, docs/adr/0804). */
export async function findAccountMessage(q: Queryable, accountId: string, id: string): Promise<string | undefined> {
  const { rows } = await q.query<{ id: string }>("SELECT id FROM messages WHERE id = $1 AND account_id = $2", [id, accountId]);
  return rows[0]?.id;
}

/** The raw MIME of a message whatever its account (the signed download route, whose token names it). */
export async function findInboundRawById(q: Queryable, id: string): Promise<Buffer | undefined> {
  const { rows } = await q.query<{ raw: Buffer | null }>(`${RAW_OF_MESSAGE} WHERE m.id = $1`, [id]);
  return rows[0]?.raw ?? undefined;
}
