import type { Queryable } from "./database";

/**
 * The SQL of messages.tracked_links (the link list of a message's HTML body,
 * written by its first tracked delivery) and of the facts delivery learns
 * about a message (docs/adr/0320). lib/domain/tracking/tracked-links.ts decides what
 * a link is; this is only the SQL. The click path and the facts writer are
 * hot: named (prepared) statements.
 */

/** Link `index` of the message's list: `listed` false when the message has no list yet; undefined when there is no such message. */
export async function selectTrackedLink(q: Queryable, messageId: string, index: number): Promise<{ listed: boolean; url: string | null } | undefined> {
  const { rows } = await q.query<{ listed: boolean; url: string | null }>({
    name: "mailroom_tracked_link",
    text: "SELECT tracked_links IS NOT NULL AS listed, tracked_links->>$2::int AS url FROM messages WHERE id = $1",
    values: [messageId, index],
  });
  return rows[0];
}

/** The message's stored HTML body; null or undefined when it has none. */
export async function selectMessageHtml(q: Queryable, messageId: string): Promise<string | null | undefined> {
  const { rows } = await q.query<{ html: string | null }>("SELECT content->>'html' AS html FROM messages WHERE id = $1", [messageId]);
  return rows[0]?.html;
}

/** Keeps the link list of a message unless one is kept already. */
export async function updateTrackedLinks(q: Queryable, messageId: string, links: string[]): Promise<void> {
  await q.query({
    name: "mailroom_store_tracked_links",
    text: "UPDATE messages SET tracked_links = $2::jsonb WHERE id = $1 AND tracked_links IS NULL",
    values: [messageId, JSON.stringify(links)],
  });
}

export interface MessageFactsRow {
  messageId: string;
  /** The message's created_at: its day table (docs/adr/0044). */
  createdAt: Date;
  /** Kept unless a list is kept already. */
  links?: string[];
  /** Bytes of a built copy (messages.size). */
  size?: number;
}

/** One UPDATE for the facts of several messages. */
export async function updateMessageFacts(q: Queryable, batch: MessageFactsRow[]): Promise<void> {
  const days = batch.map((f) => Math.floor(f.createdAt.getTime() / 86_400_000));
  await q.query({
    name: "mailroom_record_message_facts",
    text: `UPDATE messages m
                  SET tracked_links = COALESCE(m.tracked_links, v.links::jsonb), size = COALESCE(v.size, m.size)
                 FROM unnest($1::uuid[], $2::text[], $3::int[], $4::bigint[]) AS v(id, links, size, day)
                WHERE m.id = v.id AND m.created_at >= to_timestamp(v.day * 86400) AND m.created_at < to_timestamp((v.day + 1) * 86400)
                  -- the batch's days: the other day tables pruned when the statement starts (docs/adr/0044)
                  AND m.created_at >= to_timestamp($5::bigint * 86400) AND m.created_at < to_timestamp(($6::bigint + 1) * 86400)`,
    // unnest (estimated 10 rows), not jsonb_to_recordset (100): an index lookup per message even on stale statistics.
    values: [
      batch.map((f) => f.messageId),
      batch.map((f) => (f.links ? JSON.stringify(f.links) : null)),
      batch.map((f) => f.size ?? null),
      days,
      Math.min(...days),
      Math.max(...days),
    ],
  });
}
