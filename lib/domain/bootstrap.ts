import type { AppContext } from "../context";

export interface FirstStartReport {
  /** Present only on the very first start of an installation. */
  demo?: { accountId: string; apiKey: string; adminEmail: string; adminPassword: string };
}

/**
 * First start of a fresh install: the Demo account (default) with a verified
 * example.com domain, its API key, the dashboard's key and an admin user.
 * (Owned by the CLI/accounts work.)
 */
export async function ensureFirstStart(ctx: AppContext): Promise<FirstStartReport> {
  void ctx;
  return {};
}
