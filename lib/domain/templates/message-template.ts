import type { Queryable } from "../../storage/database";
import { and, eq } from "drizzle-orm";
import { messages } from "../../storage/schema";

/** The template and version a message of the account was rendered from (docs/adr/0120); undefined for any other message. */
export async function messageTemplateOf(q: Queryable, accountId: string, messageId: string): Promise<{ templateId: number; version: number } | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(messageId)) return undefined;
  const [row] = await q.db
    .select({ templateId: messages.templateId, version: messages.templateVersion })
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.accountId, accountId)))
    .limit(1);
  return row && row.templateId !== null && row.version !== null ? { templateId: row.templateId, version: row.version } : undefined;
}
