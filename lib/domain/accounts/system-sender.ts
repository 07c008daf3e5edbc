import { selectAccountName } from "../../storage/account-rows";
import { selectLiveDashboardKeyId, selectOldestLiveKeyId } from "../../storage/api-key-rows";
import type { Queryable } from "../../storage/database";
import { selectAccountAdminEmails } from "../../storage/staff-rows";
import type { AuthenticatedKey } from "./api-keys";
import { getDefaultAccount } from "./accounts";
import { effectiveLimits } from "./plans";
import { listSenderDomains } from "./sender-domains";

/**
 * Mail the instance sends about itself (ADR 0512, ADR 0410) goes through
 * its own sending path as the default account: this is that account's key
 * as the send use case sees it (its dashboard key, else its oldest live
 * key: only the id is read, never a secret), and the From address
 * (MAILROOM_INVITATION_FROM, else no-reply@ its first verified domain).
 * Undefined when the instance cannot send (no default account, no live
 * key, no From).
 */
export async function systemSender(q: Queryable, configuredFrom: string | undefined): Promise<{ key: AuthenticatedKey; from: string } | undefined> {
  const account = await getDefaultAccount(q);
  if (!account || account.status !== "active") return undefined;
  const keyId = (await selectLiveDashboardKeyId(q, account.id)) ?? (await selectOldestLiveKeyId(q, account.id));
  if (!keyId) return undefined;
  const verified = (await listSenderDomains(q, account.id)).find((d) => d.status === "verified");
  const from = configuredFrom ?? (verified ? `no-reply@${verified.name}` : undefined);
  if (!from) return undefined;
  return {
    from,
    key: {
      keyId,
      accountId: account.id,
      plan: account.plan,
      limits: effectiveLimits(account.plan, account),
      trackOpens: false,
      trackClicks: false,
      // Mailroom's own messages to staff: the account's full authority, no sender-domain limit.
      scope: "full",
      senderDomains: null,
    },
  };
}

/** The account's name and the emails of its admins (members with the admin role). */
export async function accountAdmins(q: Queryable, accountId: string): Promise<{ accountName: string; emails: string[] }> {
  const accountName = await selectAccountName(q, accountId);
  return { accountName: accountName ?? "", emails: await selectAccountAdminEmails(q, accountId) };
}
