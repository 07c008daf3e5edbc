import type { Queryable } from "./database";

/**
 * The sandbox MX's captures (sandbox_messages): stored by
 * lib/inbound/sandbox-mx.ts, read by lib/inbound/sandbox-inbox.ts.
 */

export interface SandboxRow {
  id: number;
  received_at: Date;
  mail_from: string;
  rcpt_to: string[];
  subject: string;
  message_id_header: string;
  mailroom_message_id: string | null;
  size: number;
}

/** One capture as insertSandboxCaptures stores it. */
export interface SandboxCaptureRow {
  mail_from: string;
  rcpt_to: string[];
  subject: string;
  message_id_header: string;
  /** The recipient row its signed envelope sender names: the capture's message and account come from it (docs/adr/0307). */
  recipient_id: number;
  size: number;
  /** The message (base64), or "" when its bytes follow in appendSandboxCaptureRaw. */
  raw: string;
}

/** Stores captures in one prepared statement (constant text); the ids of the rows, in order. */
export async function insertSandboxCaptures(q: Queryable, captures: SandboxCaptureRow[]): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>({
    name: "mailroom_sandbox_capture",
    // Filed by the recipient row of the signed envelope sender, never by a header (docs/adr/0307).
    text: `INSERT INTO sandbox_messages (mail_from, rcpt_to, subject, message_id_header, mailroom_message_id, size, raw, account_id)
           SELECT x.mail_from, ARRAY(SELECT jsonb_array_elements_text(x.rcpt_to)), x.subject, x.message_id_header, r.message_id,
                  x.size, decode(x.raw, 'base64'), r.account_id
           FROM jsonb_to_recordset($1::jsonb) AS x(i int, mail_from text, rcpt_to jsonb, subject text, message_id_header text,
                  recipient_id bigint, size int, raw text)
           LEFT JOIN message_recipients r ON r.id = x.recipient_id
           ORDER BY x.i
           RETURNING id`,
    values: [JSON.stringify(captures.map((c, i) => ({ i, ...c })))],
  });
  return rows.map((r) => r.id);
}

/** A large capture's bytes, as a binary parameter: joined by PostgreSQL (a 10 MB Buffer.concat here is itself a long step). */
export async function appendSandboxCaptureRaw(q: Queryable, id: number, head: Buffer, data: Buffer): Promise<void> {
  await q.query({
    name: "mailroom_sandbox_capture_raw",
    text: "UPDATE sandbox_messages SET raw = $2::bytea || $3::bytea WHERE id = $1",
    values: [id, head, data],
  });
}

const COLUMNS = "id, received_at, mail_from, rcpt_to, subject, message_id_header, mailroom_message_id, size";

/** Captures matching `search` (subject, addresses, Message-ID headers and ids), of one account if given, newest first; and their count. */
export async function sandboxRowsPage(
  q: Queryable,
  options: { search?: string; accountId?: string; limit: number; offset: number },
): Promise<{ total: number; rows: SandboxRow[] }> {
  const conds: string[] = [];
  const params: unknown[] = [];
  if (options.search) {
    params.push(`%${options.search.replace(/[%_\\]/g, "\\$&")}%`);
    const p = `$${params.length}`;
    conds.push(
      `(subject ILIKE ${p} OR mail_from ILIKE ${p} OR array_to_string(rcpt_to, ' ') ILIKE ${p} OR message_id_header ILIKE ${p} OR mailroom_message_id::text ILIKE ${p})`,
    );
  }
  if (options.accountId) {
    // Captured mail carries its account (migration 0510).
    params.push(options.accountId);
    conds.push(`account_id = $${params.length}`);
  }
  const where = conds.length ? `WHERE ${conds.join(" AND ")}` : "";
  const { rows: count } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM sandbox_messages ${where}`, params);
  const { rows } = await q.query<SandboxRow>(
    `SELECT ${COLUMNS} FROM sandbox_messages ${where} ORDER BY received_at DESC, id DESC LIMIT ${options.limit} OFFSET ${options.offset}`,
    params,
  );
  return { total: count[0]?.n ?? 0, rows };
}

/** One capture with its raw message; with `accountId`, only that account's. */
export async function sandboxRowWithRaw(q: Queryable, id: number, accountId?: string): Promise<(SandboxRow & { raw: Buffer }) | undefined> {
  const { rows } = accountId
    ? await q.query<SandboxRow & { raw: Buffer }>(`SELECT ${COLUMNS}, raw FROM sandbox_messages WHERE id = $1 AND account_id = $2`, [id, accountId])
    : await q.query<SandboxRow & { raw: Buffer }>(`SELECT ${COLUMNS}, raw FROM sandbox_messages WHERE id = $1`, [id]);
  return rows[0];
}
