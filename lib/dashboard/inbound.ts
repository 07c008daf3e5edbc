import "server-only";
import { repliesTo } from "../domain/inbound/messages";
import { getServerContext } from "../runtime";
import type { AccountAccess } from "./decide";
import { assertArea } from "./guard";

/**
 * What the public API cannot express about received mail: the replies to an
 * outbound message (its timeline). Routes and received messages themselves
 * are read and changed through the API as the account (lib/dashboard/api-for.ts).
 */
export interface ReplySummary {
  messageId: string;
  from: string;
  subject: string;
  receivedAt: string;
}

export async function repliesToMessage(access: AccountAccess, messageId: string): Promise<ReplySummary[]> {
  assertArea(access, "messages");
  const rows = await repliesTo(getServerContext().database, access.account.accountId, messageId);
  return rows.map((r) => ({ messageId: r.id, from: r.from_email, subject: r.subject, receivedAt: r.received_at.toISOString() }));
}
