import { and, eq, inArray } from "drizzle-orm";
import type { Queryable } from "./database";
import { messages } from "./schema";

/** Single-message reads by id (`messageId` a UUID, the column's type). */

/** Which of these accounts holds the message; undefined when none does. */
export async function selectMessageAccountAmong(q: Queryable, messageId: string, accountIds: string[]): Promise<string | undefined> {
  const [row] = await q.db
    .select({ accountId: messages.accountId })
    .from(messages)
    .where(and(eq(messages.id, messageId), inArray(messages.accountId, accountIds)));
  return row?.accountId;
}

/** The template columns of the account's message; undefined when the account has no such message. */
export async function selectMessageTemplateColumns(
  q: Queryable,
  accountId: string,
  messageId: string,
): Promise<{ templateId: number | null; version: number | null } | undefined> {
  const [row] = await q.db
    .select({ templateId: messages.templateId, version: messages.templateVersion })
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.accountId, accountId)))
    .limit(1);
  return row;
}

/**
 * What the account's message carried as accepted (messages.content, docs/adr/0518), as JSON text so
 * that a large one is parsed off the event loop; undefined when the account has no such message.
 */
export async function selectMessageContentText(
  q: Queryable,
  accountId: string,
  messageId: string,
): Promise<{ contentText: string; transport: string; createdAt: Date } | undefined> {
  const { rows } = await q.query<{ content_text: string; transport: string; created_at: Date }>(
    "SELECT content::text AS content_text, transport, created_at FROM messages WHERE id = $1 AND account_id = $2 LIMIT 1",
    [messageId, accountId],
  );
  const row = rows[0];
  return row && { contentText: row.content_text, transport: row.transport, createdAt: row.created_at };
}
