import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../lib/context";
import { decideAccess, type AccountAccess } from "../../lib/dashboard/decide";
import * as settings from "../../lib/dashboard/settings";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { authenticateApiKey, createApiKey, createApiKeyAuthCache } from "../../lib/domain/accounts/api-keys";
import { DomainError } from "../../lib/domain/shared/domain-error";
import { accountsVisibleTo, addStaffUser } from "../../lib/domain/staff/staff-users";
import { setServerContext } from "../../lib/runtime";
import { createDashboardApiCache } from "../../lib/api-client/dashboard-cache";
import { openDatabase, type Database } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";

/** Settings → API keys (lib/dashboard/settings.ts): keys made with a scope and domains, listed with them, per account. */
describe("dashboard: API key scopes", () => {
  let database: Database;
  let acme: string;
  let demoKeyId: string;
  let admin: AccountAccess;
  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), { max: 2 });
    setServerContext({ database, config: { delivery: { bounceDomain: undefined, heloName: "mail.test" } }, publicUrl: "http://127.0.0.1:3000", apiKeyAuth: createApiKeyAuthCache(), dashboardApi: createDashboardApiCache() } as unknown as AppContext);
    const demo = (await createAccount(database, { name: "Demo", plan: "unlimited", isDefault: true })).accountId;
    acme = (await createAccount(database, { name: "Acme", plan: "growth", domain: "acme.test", verified: true })).accountId;
    demoKeyId = (await createApiKey(database, demo, "demo reader", { scope: "read" })).key.id;
    await addStaffUser(database, { email: "admin@acme.test", role: "admin", password: "password-1", accountId: acme });
    const visible = await accountsVisibleTo(database, "admin@acme.test");
    const user = { email: "admin@acme.test", name: "", isOwner: false, mustChangePassword: false, accounts: visible!.accounts };
    admin = (decideAccess(user, acme, "settings") as { access: AccountAccess }).access;
  });
  afterAll(async () => {
    await database?.close();
  });

  it("creates keys with their scope and domains, and lists each key's scope", async () => {
    const read = await settings.createKey(admin, "reporting", { scope: "read" });
    const send = await settings.createKey(admin, "shop", { scope: "send", senderDomains: ["Acme.test", "news.acme.test"] });
    await settings.createKey(admin, "everything");
    const auth = await authenticateApiKey(database, `Bearer ${send.apiKey}`);
    expect(auth.ok && [auth.key.accountId, auth.key.scope, auth.key.senderDomains]).toEqual([acme, "send", ["acme.test", "news.acme.test"]]);
    expect((await authenticateApiKey(database, `Bearer ${read.apiKey}`)).ok).toBe(true);

    const data = await settings.loadSettings(admin, {});
    const byLabel = Object.fromEntries(data.keys.map((k) => [k.label, [k.scope, k.senderDomains]]));
    expect(byLabel).toMatchObject({ reporting: ["read", null], shop: ["send", ["acme.test", "news.acme.test"]], everything: ["full", null] });
    // Another account's keys are neither listed nor revocable from here.
    expect(data.keys.map((k) => k.label)).not.toContain("demo reader");
    await expect(settings.revokeKey(admin, demoKeyId)).rejects.toThrow("No such active key");
  });

  it("refuses a domain list with a name that is not a domain", async () => {
    await expect(settings.createKey(admin, "bad", { scope: "send", senderDomains: ["acme.test", "no domain"] })).rejects.toThrow(DomainError);
    expect((await settings.loadSettings(admin, {})).keys.map((k) => k.label)).not.toContain("bad");
  });
});
