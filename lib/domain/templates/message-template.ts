import type { Queryable } from "../../storage/database";
import { selectMessageTemplateColumns } from "../../storage/message-rows";

/** The template and version a message of the account was rendered from (docs/adr/0120); undefined for any other message. */
export async function messageTemplateOf(q: Queryable, accountId: string, messageId: string): Promise<{ templateId: number; version: number } | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(messageId)) return undefined;
  const row = await selectMessageTemplateColumns(q, accountId, messageId);
  return row && row.templateId !== null && row.version !== null ? { templateId: row.templateId, version: row.version } : undefined;
}
