import { extractTrackableLinks } from "../tracking/tracking-html";
import type { Database } from "../storage/database";
import { createGroupCommit } from "../storage/group-commit";
import { isRowDataError } from "../storage/sqlstate";

/**
 * The URL behind a click token: link number `index` of the message's stored
 * HTML body, the same list the delivery worker rewrote. A token can only
 * ever lead to a URL that was in the message (never an open redirect).
 *
 * The list is kept in `messages.tracked_links` (written by the first
 * delivery that tracks clicks), so a click reads one array element instead
 * of tokenizing a body of up to 10 MB. A message without the list (sent
 * before it existed) is tokenized once, in chunks, and the list stored.
 */
export async function findTrackedLink(database: Database, messageId: string, index: number): Promise<string | undefined> {
  if (!Number.isSafeInteger(index) || index < 0 || index > 2 ** 31 - 1) return undefined;
  const { rows } = await database.pool.query<{ listed: boolean; url: string | null }>({
    name: "mailroom_tracked_link",
    text: "SELECT tracked_links IS NOT NULL AS listed, tracked_links->>$2::int AS url FROM messages WHERE id = $1",
    values: [messageId, index],
  });
  const row = rows[0];
  if (!row) return undefined;
  if (row.listed) return row.url ?? undefined;
  const links = await listTrackedLinks(database, messageId);
  return links?.[index];
}

/** Tokenizes the stored body once and keeps its link list; undefined when the message has no HTML body. */
async function listTrackedLinks(database: Database, messageId: string): Promise<string[] | undefined> {
  const { rows } = await database.pool.query<{ html: string | null }>("SELECT content->>'html' AS html FROM messages WHERE id = $1", [messageId]);
  const html = rows[0]?.html;
  if (!html) return undefined;
  const links = await extractTrackableLinks(html);
  await storeTrackedLinks(database, messageId, links);
  return links;
}

/** Keeps the link list of a message unless one is kept already (every writer computes the same list). */
export async function storeTrackedLinks(database: Database, messageId: string, links: string[]): Promise<void> {
  await database.pool.query({
    name: "mailroom_store_tracked_links",
    text: "UPDATE messages SET tracked_links = $2::jsonb WHERE id = $1 AND tracked_links IS NULL",
    values: [messageId, JSON.stringify(links)],
  });
}

/** What delivery learns about a message once its first copy is built. */
export interface MessageFacts {
  messageId: string;
  /** The trackable links (kept unless a list is kept already). */
  links?: string[];
  /** Bytes of a built copy (messages.size). */
  size?: number;
}

export type MessageFactsWriter = (facts: MessageFacts) => Promise<void>;

/**
 * One per process (buildAppContext, `ctx.messageFacts`). Keeps a message's
 * link list and built size, group-committed with those of the other jobs of
 * the process: one UPDATE for all the messages whose first copy was built
 * during the previous write (it was one statement per message, 45% of a
 * delivery worker's statements: docs/adr/0320). Resolves once the row is
 * written, so a copy is never sent before its links can be looked up.
 */
export function createMessageFactsWriter(database: Database): MessageFactsWriter {
  return createGroupCommit(
    async (batch: MessageFacts[]) => {
      await database.pool.query({
        name: "mailroom_record_message_facts",
        text: `UPDATE messages m
                  SET tracked_links = COALESCE(m.tracked_links, v.links::jsonb), size = COALESCE(v.size, m.size)
                 FROM unnest($1::uuid[], $2::text[], $3::int[]) AS v(id, links, size)
                WHERE m.id = v.id`,
        // unnest (estimated 10 rows), not jsonb_to_recordset (100): an index lookup per message even on stale statistics.
        values: [batch.map((f) => f.messageId), batch.map((f) => (f.links ? JSON.stringify(f.links) : null)), batch.map((f) => f.size ?? null)],
      });
      return batch.map(() => undefined);
    },
    // A malformed item (no UUID) fails alone, not the messages written with it.
    { maxBatch: 64, maxInFlight: 1, isolate: isRowDataError },
  );
}
