import { ExpiringMap } from "../domain/expiring-map";
import type { ApiClient } from "./client";

/** What this process keeps of the dashboard's clients (on its context: Next's bundles share it). */
export interface DashboardApiCache {
  /** Each account's dashboard key, for a few seconds (getDashboardApiKey takes an advisory lock). */
  keys: ExpiringMap<string>;
  /** One client per base URL and key: its connections are kept alive. */
  clients: Map<string, ApiClient>;
  /** The account of MAILROOM_API_KEY, looked up once. */
  configuredKeyAccount?: Promise<string | undefined>;
}

export function createDashboardApiCache(): DashboardApiCache {
  return { keys: new ExpiringMap<string>(10_000), clients: new Map() };
}
