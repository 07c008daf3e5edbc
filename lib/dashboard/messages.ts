import "server-only";
import { findAccountHoldingMessage } from "../domain/events/message-account";
import { readSentMessage, sentMessageOf, type ReadSentMessage, type SentMessage } from "../domain/sending/sent-content";
import { canAccess } from "../auth/roles";
import { getServerContext } from "../runtime";
import type { DashboardUser } from "./access";
import type { AccountAccess } from "./decide";
import { assertArea } from "./guard";

/**
 * The account that holds a MessageID, among those the user may open with a
 * role that sees messages; undefined when none does (the search then says
 * "not found" without telling whether another account has it).
 */
export async function findMessageAccount(user: DashboardUser, messageId: string): Promise<string | undefined> {
  const ids = user.accounts.filter((a) => canAccess(a.role, "messages")).map((a) => a.accountId);
  return findAccountHoldingMessage(getServerContext().database, messageId, ids);
}

/** What the account's message carried (docs/adr/0518): for the message page and its raw download, roles of "messages". */
export async function readSentContent(access: AccountAccess, messageId: string): Promise<ReadSentMessage | undefined> {
  assertArea(access, "messages");
  return readSentMessage(getServerContext().database, access.account.accountId, messageId);
}

/** The raw message alone (the download), without parsing it. */
export async function sentRaw(access: AccountAccess, messageId: string): Promise<SentMessage | undefined> {
  assertArea(access, "messages");
  return sentMessageOf(getServerContext().database, access.account.accountId, messageId);
}
