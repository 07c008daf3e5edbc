import type { AppContext } from "../../lib/context";
import { createAccount, type CreatedAccount } from "../../lib/domain/accounts/accounts";

/**
 * A ready-to-send account: its API key, signing key and a verified sender
 * domain (default `example.com`).
 */
export async function createTestAccount(
  ctx: AppContext,
  options: { name?: string; plan?: string; domain?: string; verified?: boolean } = {},
): Promise<CreatedAccount> {
  return createAccount(ctx.database, {
    name: options.name ?? "Test account",
    plan: options.plan ?? "unlimited",
    domain: options.domain ?? "example.com",
    verified: options.verified ?? true,
  });
}

export function bearer(apiKey: string): Record<string, string> {
  return { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
}
