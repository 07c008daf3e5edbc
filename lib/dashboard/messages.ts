import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { isUuid } from "../domain/accounts";
import { messages } from "../storage/schema";
import { canAccess } from "../auth/roles";
import { getServerContext } from "../runtime";
import type { DashboardUser } from "./access";

/**
 * The account that holds a MessageID, among those the user may open with a
 * role that sees messages; undefined when none does (the search then says
 * "not found" without telling whether another account has it).
 */
export async function findMessageAccount(user: DashboardUser, messageId: string): Promise<string | undefined> {
  if (!isUuid(messageId)) return undefined;
  const ids = user.accounts.filter((a) => canAccess(a.role, "messages")).map((a) => a.accountId);
  if (ids.length === 0) return undefined;
  const [row] = await getServerContext()
    .database.db.select({ accountId: messages.accountId })
    .from(messages)
    .where(and(eq(messages.id, messageId), inArray(messages.accountId, ids)));
  return row?.accountId;
}
