import { ExpiringMap } from "../domain/shared/expiring-map";

/**
 * What this process keeps for the dashboard's API clients (on its context:
 * Next's bundles share it). Only plain data: a client object made in one
 * bundle would throw that bundle's ApiRequestError, which another bundle's
 * `instanceof` does not recognise, so each call makes its own (a client
 * holds no connections; fetch pools them).
 */
export interface DashboardApiCache {
  /** Each account's dashboard key, for a few seconds (getDashboardApiKey takes an advisory lock). */
  keys: ExpiringMap<string>;
  /** The account of MAILROOM_API_KEY, looked up once. */
  configuredKeyAccount?: Promise<string | undefined>;
}

export function createDashboardApiCache(): DashboardApiCache {
  return { keys: new ExpiringMap<string>(10_000) };
}
