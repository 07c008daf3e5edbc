import { extractTrackableLinks } from "../../tracking/tracking-html";
import type { Database, Queryable } from "../../storage/database";
import { createGroupCommit } from "../../storage/group-commit";
import { isRowDataError } from "../../storage/sqlstate";
import { selectMessageHtml, selectTrackedLink, updateMessageFacts, updateTrackedLinks, type MessageFactsRow } from "../../storage/tracked-link-rows";

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
export async function findTrackedLink(q: Queryable, messageId: string, index: number): Promise<string | undefined> {
  if (!Number.isSafeInteger(index) || index < 0 || index > 2 ** 31 - 1) return undefined;
  const row = await selectTrackedLink(q, messageId, index);
  if (!row) return undefined;
  if (row.listed) return row.url ?? undefined;
  const links = await listTrackedLinks(q, messageId);
  return links?.[index];
}

/** Tokenizes the stored body once and keeps its link list; undefined when the message has no HTML body. */
async function listTrackedLinks(q: Queryable, messageId: string): Promise<string[] | undefined> {
  const html = await selectMessageHtml(q, messageId);
  if (!html) return undefined;
  const links = await extractTrackableLinks(html);
  await storeTrackedLinks(q, messageId, links);
  return links;
}

/** Keeps the link list of a message unless one is kept already (every writer computes the same list). */
export async function storeTrackedLinks(q: Queryable, messageId: string, links: string[]): Promise<void> {
  await updateTrackedLinks(q, messageId, links);
}

/** What delivery learns about a message once its first copy is built: its trackable links, the bytes of a built copy. */
export type MessageFacts = MessageFactsRow;

export type MessageFactsWriter = (facts: MessageFacts) => Promise<void>;

/**
 * One per deliver worker (lib/delivery/start.ts). Keeps a message's
 * link list and built size, group-committed with those of the other jobs of
 * the process: one UPDATE for all the messages whose first copy was built
 * during the previous write (it was one statement per message, 45% of a
 * delivery worker's statements: docs/adr/0320). Resolves once the row is
 * written, so a copy is never sent before its links can be looked up.
 */
export function createMessageFactsWriter(database: Database): MessageFactsWriter {
  return createGroupCommit(
    async (batch: MessageFacts[]) => {
      await updateMessageFacts(database, batch);
      return batch.map(() => undefined);
    },
    // A malformed item (no UUID) fails alone, not the messages written with it.
    { maxBatch: 64, maxInFlight: 1, isolate: isRowDataError },
  );
}

/**
 * The origin of a message's tracking links: the public URL's, or its sender
 * domain's tracking domain on the same scheme and port (docs/adr/0135: the
 * host is a CNAME to the instance, whose TLS front serves it too).
 */
export function trackingBaseUrl(publicUrl: string, trackingDomain?: string | null): string {
  const base = publicUrl.replace(/\/+$/, "");
  if (!trackingDomain) return base;
  const url = new URL(base);
  url.hostname = trackingDomain;
  return url.toString().replace(/\/+$/, "");
}
