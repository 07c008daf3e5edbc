import "server-only";
import type { Config } from "../config";
import { getDashboardApiKey } from "../domain/bootstrap";
import { getServerContext } from "../runtime";
import { createApiClient, type ApiClient } from "./client";

export * from "./client";

/**
 * The dashboard's client of the public API, for server components, server
 * actions and route handlers only (`server-only` makes a client import a
 * build error). Base URL: MAILROOM_API_URL, else this very app on loopback.
 * Key: MAILROOM_API_KEY, else the dashboard key provisioned on first start.
 * The key never leaves the server.
 */

/** Where the dashboard reaches the API when MAILROOM_API_URL is not set: this process, on loopback. */
export function defaultApiBaseUrl(config: Config): string {
  if (config.dashboard.apiUrl) return config.dashboard.apiUrl;
  if (config.port !== 0) {
    const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
    return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
  }
  // PORT=0: server.ts wrote the bound port into publicUrl.
  return config.publicUrl;
}

export class DashboardNotConfiguredError extends Error {}

let cached: { client: ApiClient; key: string; base: string } | undefined;

export async function getApiClient(): Promise<ApiClient> {
  const ctx = getServerContext();
  const base = defaultApiBaseUrl(ctx.config);
  const key = ctx.config.dashboard.apiKey ?? (await getDashboardApiKey(ctx.database.db, { secret: ctx.config.auth.secret }));
  if (!key) throw new DashboardNotConfiguredError("No account exists yet: create one with `mailroom accounts create`, or set MAILROOM_API_KEY.");
  if (!cached || cached.key !== key || cached.base !== base) cached = { client: createApiClient({ baseUrl: base, apiKey: key }), key, base };
  return cached.client;
}
