import { extractTrackableLinks } from "../delivery/tracking-inject";
import type { Database } from "../storage/database";

/**
 * The URL behind a click token: link number `index` of the message's stored
 * HTML body, the same list the delivery worker rewrote. A token can only
 * ever lead to a URL that was in the message (never an open redirect).
 */
export async function findTrackedLink(database: Database, messageId: string, index: number): Promise<string | undefined> {
  const { rows } = await database.pool.query<{ html: string | null }>("SELECT content->>'html' AS html FROM messages WHERE id = $1", [messageId]);
  const html = rows[0]?.html;
  if (!html) return undefined;
  return extractTrackableLinks(html)[index];
}
