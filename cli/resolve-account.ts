import { getAccount, getDefaultAccount, isUuid, listAccounts, type AccountRow } from "../lib/domain/accounts/accounts";
import type { Queryable } from "../lib/storage/database";
import { CliError } from "./output";

/**
 * `--account` takes an account id or an exact account name; without it, the
 * default account (the one the dashboard shows).
 */
export async function resolveAccount(q: Queryable, ref: string | undefined): Promise<AccountRow> {
  if (ref === undefined) {
    const account = await getDefaultAccount(q);
    if (!account) throw new CliError("There is no account yet: create one with `mailroom accounts create --name NAME --plan PLAN`");
    return account;
  }
  if (isUuid(ref)) {
    const account = await getAccount(q, ref);
    if (!account) throw new CliError(`No account with id ${ref}`);
    return account;
  }
  const matches = (await listAccounts(q)).filter((a) => a.name.toLowerCase() === ref.trim().toLowerCase());
  if (matches.length === 1) return (await getAccount(q, matches[0]!.accountId))!;
  if (matches.length > 1) throw new CliError(`Several accounts are named "${ref}": use the account id`);
  throw new CliError(`No account with id or name "${ref}"`);
}
