import "server-only";
import type { Config } from "../config";

export * from "./client";

/**
 * The dashboard's client of the public API, server-only (`server-only` makes
 * a client import a build error). Base URL: MAILROOM_API_URL, else this very
 * app on loopback. The key is the account's own (lib/dashboard/api.ts, ADR
 * 0510): the key never leaves the server.
 */

/** Where the dashboard reaches the API when MAILROOM_API_URL is not set: this process, on loopback. */
export function defaultApiBaseUrl(config: Config, publicUrl = config.publicUrl): string {
  if (config.dashboard.apiUrl) return config.dashboard.apiUrl;
  if (config.port !== 0) {
    const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
    return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
  }
  // PORT=0: server.ts put the bound port into the context's publicUrl.
  return publicUrl;
}
