import "server-only";
import { findAccountHoldingMessage } from "../domain/events/message-account";
import { canAccess } from "../auth/roles";
import { getServerContext } from "../runtime";
import type { DashboardUser } from "./access";

/**
 * The account that holds a MessageID, among those the user may open with a
 * role that sees messages; undefined when none does (the search then says
 * "not found" without telling whether another account has it).
 */
export async function findMessageAccount(user: DashboardUser, messageId: string): Promise<string | undefined> {
  const ids = user.accounts.filter((a) => canAccess(a.role, "messages")).map((a) => a.accountId);
  return findAccountHoldingMessage(getServerContext().database, messageId, ids);
}
