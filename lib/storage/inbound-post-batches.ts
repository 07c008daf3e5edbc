import type { Queryable } from "./database";
import {
  dayTableOf,
  loadFromDayTableSql,
  loadInboundRowForPost,
  recordFirstInboundAttempt,
  recordInboundAttempt,
  snippet,
  UNDEFINED_TABLE,
  type InboundKey,
  type LoadedInboundRow,
  type PayloadToSave,
} from "./inbound-rows";
import { sqlStateOf } from "./sqlstate";

/**
 * The posting loop's statements for the posts that run at once (docs/adr/0046):
 * their rows loaded by one statement per day table, their final attempts
 * recorded by one. One statement per post each cost a plan (the day tables'
 * statements are not prepared: their text changes daily), a round trip and,
 * for the record, a commit. What a batch statement does not find (a message
 * in the default table, moved, or gone) goes through the one-message path.
 */

/** Indexes of `keys` by the day table of each, those without a day apart. */
function byDayTable(keys: InboundKey[]): { tables: Map<string, number[]>; dayless: number[] } {
  const tables = new Map<string, number[]>();
  const dayless: number[] = [];
  keys.forEach((key, i) => {
    if (!key.receivedAt) return void dayless.push(i);
    const table = dayTableOf(key.receivedAt);
    const indexes = tables.get(table);
    if (indexes) indexes.push(i);
    else tables.set(table, [i]);
  });
  return { tables, dayless };
}

/** Rows for the posting jobs of `keys`, in order (undefined: gone), `raw` null for one to read in pieces (withWholeRaw). */
export async function loadInboundRowsForPost(q: Queryable, keys: InboundKey[]): Promise<(LoadedInboundRow | undefined)[]> {
  const out: (LoadedInboundRow | undefined)[] = keys.map(() => undefined);
  const { tables, dayless } = byDayTable(keys);
  const missed = [...dayless];
  for (const [table, indexes] of tables) {
    let rows: LoadedInboundRow[] = [];
    try {
      rows = (await q.query<LoadedInboundRow>(loadFromDayTableSql(table), [[...new Set(indexes.map((i) => keys[i]!.id))]])).rows;
    } catch (err) {
      if (sqlStateOf(err) !== UNDEFINED_TABLE) throw err;
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const i of indexes) {
      const row = byId.get(keys[i]!.id);
      if (row) out[i] = row;
      else missed.push(i);
    }
  }
  for (const i of missed) out[i] = await loadInboundRowForPost(q, keys[i]!, true);
  return out;
}

/** A final attempt (delivered or failed: no next one), with the JSON of a first post. */
export interface FinalInboundAttempt {
  key: InboundKey;
  attempt: { startedAt: Date; durationMs: number; statusCode: number; body: string; error?: string };
  status: "delivered" | "failed";
  payload?: PayloadToSave;
}

/** Columns of one attempt in the batch statement's VALUES, with their types. */
const ATTEMPT_VALUES = ["uuid", "timestamptz", "int", "int", "text", "text", "text", "bytea", "text", "text", "uuid"];

/**
 * The message's update, then its attempt's insert from the rows updated, as
 * recordInboundAttempt does for one (a message gone leaves no attempt). A
 * row's `payload_text`, subject and sender are set only by the attempt that
 * carries the JSON of its first post.
 */
function recordOnDayTableSql(table: string, rows: number): string {
  const tuples = Array.from({ length: rows }, (_, r) => `(${ATTEMPT_VALUES.map((type, c) => `$${r * ATTEMPT_VALUES.length + c + 1}::${type}`).join(", ")})`);
  return `WITH v (id, attempted_at, duration_ms, status_code, body, error, status, payload, subject, from_email, replied_to) AS (VALUES ${tuples.join(", ")}),
   m AS (UPDATE ${table} t SET attempts = t.attempts + 1, status = v.status, next_attempt_at = NULL,
           payload_text = CASE WHEN v.payload IS NULL THEN t.payload_text ELSE COALESCE(t.payload_text, convert_from(v.payload, 'UTF8')) END,
           subject = CASE WHEN v.payload IS NULL THEN t.subject ELSE v.subject END,
           from_email = CASE WHEN v.payload IS NULL THEN t.from_email ELSE v.from_email END,
           replied_to_message_id = CASE WHEN v.payload IS NULL THEN t.replied_to_message_id ELSE v.replied_to END
         FROM v WHERE t.id = v.id RETURNING t.id)
   INSERT INTO inbound_attempts (inbound_message_id, attempted_at, duration_ms, status_code, body, error)
   SELECT v.id, v.attempted_at, v.duration_ms, v.status_code, v.body, v.error FROM m JOIN v ON v.id = m.id
   RETURNING inbound_message_id`;
}

const valuesOf = ({ key, attempt, status, payload }: FinalInboundAttempt): unknown[] => [
  key.id,
  attempt.startedAt,
  Math.round(attempt.durationMs),
  attempt.statusCode,
  snippet(attempt.body),
  attempt.error ?? null,
  status,
  payload?.payloadJson ?? null,
  payload?.subject ?? null,
  payload?.fromEmail ?? null,
  payload?.repliedToMessageId ?? null,
];

/** One attempt by the one-message path (its fallbacks: the parent table, a JSON the database refuses). */
async function recordOne(q: Queryable, item: FinalInboundAttempt): Promise<void> {
  const state = { status: item.status, nextAttemptAt: null };
  if (item.payload) await recordFirstInboundAttempt(q, false, item.key, item.attempt, state, item.payload);
  else await recordInboundAttempt(q, false, item.key, item.attempt, state);
}

/**
 * Records the final attempts of several posts: one statement per day table
 * (atomic without BEGIN and COMMIT, as one message's is), the one-message
 * path for the rest. A batch that fails on one row's data is for the caller
 * to write again one by one (lib/storage/group-commit.ts `isolate`).
 */
export async function recordFinalInboundAttempts(q: Queryable, items: FinalInboundAttempt[]): Promise<void[]> {
  if (items.length === 1) {
    await recordOne(q, items[0]!);
    return [undefined];
  }
  const seen = new Set<string>();
  // A message twice in one batch (two jobs of one attempt) would be updated once and get two attempts.
  const twice = items.filter((item) => seen.size === seen.add(item.key.id).size);
  const once = items.filter((item) => !twice.includes(item));
  const { tables, dayless } = byDayTable(once.map((i) => i.key));
  const single = [...dayless.map((i) => once[i]!), ...twice];
  for (const [table, indexes] of tables) {
    const batch = indexes.map((i) => once[i]!);
    let recorded = new Set<string>();
    try {
      const { rows } = await q.query<{ inbound_message_id: string }>(recordOnDayTableSql(table, batch.length), batch.flatMap(valuesOf));
      recorded = new Set(rows.map((r) => r.inbound_message_id));
    } catch (err) {
      if (sqlStateOf(err) !== UNDEFINED_TABLE) throw err;
    }
    single.push(...batch.filter((item) => !recorded.has(item.key.id)));
  }
  for (const item of single) await recordOne(q, item);
  return items.map(() => undefined);
}
