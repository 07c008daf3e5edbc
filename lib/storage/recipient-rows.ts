import type { Queryable } from "./database";
import type { Tx } from "./transaction";

/**
 * The SQL of what happens to one recipient after delivery (opens, clicks,
 * unsubscribes, complaints, late bounces): its message_recipients row and
 * its engagement_windows (ADR 0306). lib/domain/events/recipient-events.ts decides
 * what is logged; this is only the SQL.
 */

export interface RecipientRefRow {
  id: number;
  messageId: string;
  accountId: string;
  email: string;
  status: string;
}

const SELECT = `SELECT id, message_id AS "messageId", account_id AS "accountId", email, status FROM message_recipients`;

export async function selectRecipient(q: Queryable, id: number): Promise<RecipientRefRow | undefined> {
  const { rows } = await q.query<RecipientRefRow>(`${SELECT} WHERE id = $1`, [id]);
  return rows[0];
}

/**
 * One load of the pixel or a link, counted atomically in PostgreSQL (so it
 * holds across app processes): true when it opens a new window and is to be
 * logged. The row stays locked until the caller's transaction ends, so a
 * concurrent load waits and then sees the window this one opened.
 */
const COUNT_ENGAGEMENT = `
  INSERT INTO engagement_windows AS w (recipient_id, kind, link_key, window_start, hits, logged)
  VALUES ($1, $2, $3, now(), 1, 1)
  ON CONFLICT (recipient_id, kind, link_key) DO UPDATE
     SET hits = w.hits + 1,
         logged = w.logged + CASE WHEN w.window_start <= now() - make_interval(secs => $4) THEN 1 ELSE 0 END,
         window_start = CASE WHEN w.window_start <= now() - make_interval(secs => $4) THEN now() ELSE w.window_start END
  RETURNING w.window_start = now() AS fresh`;

/** Counts a load in the window of (recipient, kind, link key); true when it opened a new window of `windowSeconds`. */
export async function countEngagement(tx: Tx, recipientId: number, kind: string, linkKey: string, windowSeconds: number): Promise<boolean> {
  const { rows } = await tx.query<{ fresh: boolean }>({
    name: "mailroom_count_engagement",
    text: COUNT_ENGAGEMENT,
    values: [recipientId, kind, linkKey, windowSeconds],
  });
  return rows[0]?.fresh === true;
}

/** Locks the recipient's row until the transaction ends (serialises repeats for one recipient). */
export async function lockRecipient(tx: Tx, recipientId: number): Promise<void> {
  await tx.query("SELECT id FROM message_recipients WHERE id = $1 FOR UPDATE", [recipientId]);
}

/** Marks the recipient `failed` with `lastReply`, unless it is final already; false when it was. */
export async function failRecipient(tx: Tx, recipientId: number, lastReply: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE message_recipients SET status = 'failed', last_reply = $2, updated_at = now(), next_attempt_at = NULL
       WHERE id = $1 AND status NOT IN ('failed', 'rejected', 'suppressed')`,
    [recipientId, lastReply],
  );
  return !!rowCount;
}
