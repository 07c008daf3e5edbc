import "server-only";
import { listSenderDomains } from "../domain/accounts/sender-domains";
import { getServerContext } from "../runtime";
import type { AccountAccess } from "./decide";
import { assertArea } from "./guard";

/** The From domains of the account, for the composer. */
export async function composeDomains(access: AccountAccess): Promise<{ name: string; verified: boolean }[]> {
  assertArea(access, "compose");
  const rows = await listSenderDomains(getServerContext().database, access.account.accountId);
  return rows.map((d) => ({ name: d.name, verified: d.status === "verified" }));
}
