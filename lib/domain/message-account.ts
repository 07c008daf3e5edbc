import { and, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../storage/database";
import { messages } from "../storage/schema";
import { isUuid } from "./accounts";

/** Which of these accounts holds the message (the dashboard's MessageID search); undefined when none does. */
export async function findAccountHoldingMessage(q: Queryable, messageId: string, accountIds: string[]): Promise<string | undefined> {
  if (!isUuid(messageId) || accountIds.length === 0) return undefined;
  const [row] = await q.db
    .select({ accountId: messages.accountId })
    .from(messages)
    .where(and(eq(messages.id, messageId), inArray(messages.accountId, accountIds)));
  return row?.accountId;
}
