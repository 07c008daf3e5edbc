import "server-only";
import { authenticateApiKey } from "../domain/api-keys";
import { getDashboardApiKey } from "../domain/bootstrap";
import { getServerContext } from "../runtime";

/**
 * The account the dashboard acts as: the one its API key belongs to
 * (MAILROOM_API_KEY, else the provisioned key of the default account). The
 * pages that go through server-only domain modules (settings, the webhook
 * signing key and attempt log, compose's domain list, the sandbox inbox)
 * use this id, so they show the same account as the pages that read the API.
 */
export async function getDashboardAccountId(): Promise<string> {
  const ctx = getServerContext();
  const key = ctx.config.dashboard.apiKey ?? (await getDashboardApiKey(ctx.database.db, { secret: ctx.config.auth.secret }));
  if (!key) throw new Error("No account exists yet: create one with `mailroom accounts create`");
  const auth = await authenticateApiKey(ctx.database.db, `Bearer ${key}`);
  if (!auth.ok) throw new Error("The dashboard's API key was refused: check MAILROOM_API_KEY, or unset it to use the provisioned key");
  return auth.key.accountId;
}
