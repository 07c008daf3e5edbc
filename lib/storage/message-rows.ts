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
