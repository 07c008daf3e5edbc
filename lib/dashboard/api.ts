import "server-only";
import { createApiClient, type ApiClient } from "../api-client/client";
import { defaultApiBaseUrl } from "../api-client";
import { authenticateApiKey } from "../domain/accounts/api-keys";
import { getDashboardApiKey } from "../domain/staff/bootstrap";
import { getServerContext } from "../runtime";

/**
 * The dashboard's client of the public API for one account (dogfooding per
 * account, ADR 0510): the account's own dashboard key, made on demand and
 * stored sealed. MAILROOM_API_KEY, when set, serves the account it belongs
 * to. Only lib/dashboard calls this, after the access check.
 */

/** Forgets the dashboard's keys (after a revocation: the dashboard's own key may be the one revoked). */
export function forgetDashboardKeys(): void {
  getServerContext().dashboardApi.keys.clear();
}

async function accountOfConfiguredKey(key: string): Promise<string | undefined> {
  const cache = getServerContext().dashboardApi;
  cache.configuredKeyAccount ??= authenticateApiKey(getServerContext().database, `Bearer ${key}`, getServerContext().apiKeyAuth).then((r) => (r.ok ? r.key.accountId : undefined));
  return cache.configuredKeyAccount;
}

async function dashboardKeyOf(accountId: string, ctx: ReturnType<typeof getServerContext>): Promise<string | undefined> {
  const hit = ctx.dashboardApi.keys.get(accountId);
  if (hit) return hit;
  const key = await getDashboardApiKey(ctx.database, { accountId, secret: dashboardSecret(ctx) });
  if (key) ctx.dashboardApi.keys.set(accountId, key);
  return key;
}

export async function apiClientFor(accountId: string): Promise<ApiClient> {
  const ctx = getServerContext();
  const base = defaultApiBaseUrl(ctx.config);
  const configured = ctx.config.dashboard.apiKey;
  const key =
    configured && (await accountOfConfiguredKey(configured)) === accountId
      ? configured
      : await dashboardKeyOf(accountId, ctx);
  if (!key) throw new Error("No such account");
  return createApiClient({ baseUrl: base, apiKey: key });
}

/** The dashboard's secret, resolved at start by server.ts (docs/adr/0508). */
function dashboardSecret(ctx: ReturnType<typeof getServerContext>): string {
  if (!ctx.dashboardSecret) throw new Error("The dashboard's secret is not resolved: the dashboard runs inside server.ts");
  return ctx.dashboardSecret;
}
