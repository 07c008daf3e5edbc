import type { Queryable } from "../../storage/database";
import { selectMessageAccountAmong } from "../../storage/message-rows";
import { isUuid } from "../accounts/accounts";

/** Which of these accounts holds the message (the dashboard's MessageID search); undefined when none does. */
export async function findAccountHoldingMessage(q: Queryable, messageId: string, accountIds: string[]): Promise<string | undefined> {
  if (!isUuid(messageId) || accountIds.length === 0) return undefined;
  return selectMessageAccountAmong(q, messageId, accountIds);
}
