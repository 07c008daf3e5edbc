import { stringifyJson } from "../json-worker";
import type { Tx } from "./transaction";

/**
 * The SQL of acceptance (docs/adr/0102, the hot path of docs/adr/0320):
 * messages and their recipients stored in one statement whatever their
 * number, the suppression check of limited keys, and the savepoint a limit
 * check runs under. lib/domain/sending/accept-messages.ts decides what is accepted;
 * this is only the SQL.
 */

/** One message as inserted (the columns of `messages` acceptance writes). */
export interface AcceptedMessageRow {
  id: string;
  account_id: string;
  api_key_id: string;
  from_email: string;
  from_domain: string;
  subject: string;
  headers: unknown;
  content: unknown;
  tags: unknown;
  size: number;
  transport: string;
  request_id: string | null;
  template_id: number | null;
  template_version: number | null;
  /** Unix seconds; null for a message sent now. */
  send_at: number | null;
}

/** One recipient as inserted: `i` its message's place in the chunk, `n` its place in the message. */
export interface AcceptedRecipientRow {
  i: number;
  n: number;
  message_id: string;
  account_id: string;
  email: string;
  name: string | undefined;
  kind: string;
  /** The suppression list's form of the address. */
  normalized: string;
}

/** A recipient as stored: `reason` is its suppression's, null when it is to be delivered. */
export interface StoredRecipientRow {
  id: number;
  message_id: string;
  email: string;
  reason: string | null;
}

/**
 * One statement for every message of the chunk: checks suppression, stores a
 * message only when at least one recipient remains, and stores all of its
 * recipients (suppressed ones with status `suppressed`). Returns the stored
 * recipients. Constant text, so a named (prepared) statement.
 */
export async function insertAcceptedMessages(tx: Tx, messages: AcceptedMessageRow[], recipients: AcceptedRecipientRow[]): Promise<StoredRecipientRow[]> {
  const { rows } = await tx.query<StoredRecipientRow>({
    name: "mailroom_accept_messages",
    text: `WITH mm AS (
             SELECT * FROM jsonb_to_recordset(convert_from($1::bytea, 'UTF8')::jsonb) AS x(id uuid, account_id uuid, api_key_id uuid, from_email text, from_domain text,
               subject text, headers jsonb, content jsonb, tags jsonb, size int, transport text, request_id text,
               template_id bigint, template_version int, send_at bigint)
           ), r AS (
             SELECT x.*, s.reason
             FROM jsonb_to_recordset($2::jsonb) AS x(i int, n int, message_id uuid, account_id uuid, email text, name text, kind text, normalized text)
             LEFT JOIN suppressions s ON s.account_id = x.account_id AND s.email = x.normalized
           ), keep AS (
             SELECT DISTINCT message_id FROM r WHERE reason IS NULL
           ), m AS (
             INSERT INTO messages (id, account_id, api_key_id, from_email, from_domain, subject, headers, content, tags, size, transport, request_id,
               template_id, template_version, send_at, schedule_status)
             SELECT mm.id, mm.account_id, mm.api_key_id, mm.from_email, mm.from_domain, mm.subject, mm.headers, mm.content,
                    ARRAY(SELECT jsonb_array_elements_text(mm.tags)), mm.size, mm.transport, mm.request_id, mm.template_id, mm.template_version,
                    to_timestamp(mm.send_at), CASE WHEN mm.send_at IS NULL THEN NULL ELSE 'scheduled' END
             FROM mm JOIN keep ON keep.message_id = mm.id
             RETURNING id
           ), ins AS (
             INSERT INTO message_recipients (message_id, account_id, email, name, kind, status)
             SELECT r.message_id, r.account_id, r.email, r.name, r.kind, CASE WHEN r.reason IS NULL THEN 'queued' ELSE 'suppressed' END
             FROM r JOIN m ON m.id = r.message_id ORDER BY r.i, r.n
             RETURNING id, message_id, email
           )
           SELECT ins.id, ins.message_id, ins.email, r.reason FROM ins JOIN r ON r.message_id = ins.message_id AND r.email = ins.email`,
    // The messages' JSON (10 MB for one large message) is serialised off the event loop and sent as bytes (lib/json-worker.ts).
    values: [await stringifyJson(messages, messages.reduce((n, m) => n + m.size, 0)), JSON.stringify(recipients)],
  });
  return rows;
}

/** Which of the (account, normalized address) pairs are on their account's suppression list. */
export async function selectSuppressedPairs(tx: Tx, pairs: (readonly [accountId: string, email: string])[]): Promise<{ account_id: string; email: string }[]> {
  const { rows } = await tx.query<{ account_id: string; email: string }>(
    `SELECT s.account_id, s.email FROM suppressions s
     JOIN unnest($1::uuid[], $2::text[]) AS p(account_id, email) ON s.account_id = p.account_id AND s.email = p.email`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
  return rows;
}

/**
 * Runs `work` under the savepoint `limits`: kept when `keep(result)`, else
 * rolled back to (undoing what `work` wrote, nothing else of the transaction).
 */
export async function underLimitsSavepoint<T>(tx: Tx, work: () => Promise<T>, keep: (result: T) => boolean): Promise<T> {
  await tx.query("SAVEPOINT limits");
  const result = await work();
  if (keep(result)) {
    await tx.query("RELEASE SAVEPOINT limits");
  } else {
    await tx.query("ROLLBACK TO SAVEPOINT limits");
    await tx.query("RELEASE SAVEPOINT limits");
  }
  return result;
}
