import "server-only";
import { messageTemplateOf } from "../domain/templates/message-template";
import { getServerContext } from "../runtime";
import type { AccountAccess } from "./decide";
import { assertArea } from "./guard";

/**
 * What the public API cannot express about templates: which template a
 * message was rendered from (the message view). Templates themselves are
 * read and written through the API as the account (lib/dashboard/api-for.ts).
 */
export async function messageTemplate(access: AccountAccess, messageId: string): Promise<{ templateId: number; version: number } | undefined> {
  assertArea(access, "messages");
  return messageTemplateOf(getServerContext().database, access.account.accountId, messageId);
}
