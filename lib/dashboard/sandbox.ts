import "server-only";
import { listSandboxMessages, readSandboxMessage, reportSandboxMessageAsSpam, type SandboxList, type SandboxMessage } from "../inbound/sandbox-inbox";
import { getServerContext } from "../runtime";
import type { AccountAccess } from "./decide";
import { assertArea } from "./guard";

export type { SandboxList, SandboxListItem, SandboxMessage, SandboxAttachment } from "../inbound/sandbox-inbox";

/** The account's captured mail (captures carry their account). */
export function listSandbox(access: AccountAccess, options: { search?: string; limit: number; offset: number }): Promise<SandboxList> {
  assertArea(access, "sandbox");
  return listSandboxMessages(getServerContext().database, { ...options, accountId: access.account.accountId });
}

/** One capture of the account; another account's is undefined (a 404). */
export function readSandbox(access: AccountAccess, id: number): Promise<SandboxMessage | undefined> {
  assertArea(access, "sandbox");
  return readSandboxMessage(getServerContext().database, id, { accountId: access.account.accountId });
}

export function reportSandboxSpam(access: AccountAccess, id: number): Promise<{ ok: boolean; reason?: string }> {
  assertArea(access, "sandbox");
  return reportSandboxMessageAsSpam(getServerContext(), id, { accountId: access.account.accountId });
}
