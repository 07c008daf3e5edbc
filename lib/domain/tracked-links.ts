import { extractTrackableLinks } from "../tracking/tracking-html";
import type { Database } from "../storage/database";

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
