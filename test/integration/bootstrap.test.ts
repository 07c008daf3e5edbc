import { afterAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../lib/config";
import type { AppContext } from "../../lib/context";
import { listAccounts } from "../../lib/domain/accounts/accounts";
import { authenticateApiKey, listApiKeys, revokeApiKey } from "../../lib/domain/accounts/api-keys";
import { ensureFirstStart, getDashboardApiKey } from "../../lib/domain/staff/bootstrap";
import { listSenderDomains } from "../../lib/domain/accounts/sender-domains";
import { listMembershipsOf, listStaffUsers, verifyStaffPassword } from "../../lib/domain/staff/staff-users";
import { createLogger } from "../../lib/logger";
import { openDatabase, type Database } from "../../lib/storage/database";
import { startTestApp, type TestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";

/** The dashboard's secret these calls seal its keys with (AUTH_SECRET or the data directory's, docs/adr/0508). */
const TEST_SECRET = "a-test-secret-of-enough-length";

describe("first start provisioning", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  let first: TestApp;
  let databaseUrl: string;

  it("creates the Demo account, its key, a verified example.com and an admin on the very first start", async () => {
    databaseUrl = await createTestDatabase();
    first = await startTestApp({ DATABASE_URL: databaseUrl });
    cleanups.push(() => first.stop());
    const demo = first.firstStart?.demo;
    expect(demo).toMatchObject({ accountName: "Demo", domain: "example.com", adminEmail: "admin@example.com" });
    expect(demo!.apiKey).toMatch(/^mr_/);
    expect(demo!.adminPassword!.length).toBeGreaterThanOrEqual(20);

    const database = first.ctx.database;
    const [account] = await listAccounts(database);
    expect(account).toMatchObject({ accountId: demo!.accountId, name: "Demo", plan: "unlimited", status: "active", isDefault: true });
    const domains = await listSenderDomains(database, demo!.accountId);
    expect(domains.map((d) => [d.name, d.status])).toEqual([["example.com", "verified"]]);

    const auth = await authenticateApiKey(database, `Bearer ${demo!.apiKey}`);
    expect(auth).toMatchObject({ ok: true, key: { accountId: demo!.accountId } });

    const admin = await verifyStaffPassword(database, "admin@example.com", demo!.adminPassword!);
    expect(admin).toMatchObject({ email: "admin@example.com", role: "admin", mustChangePassword: true }); // printed once: asked to change it
    // The Demo admin is an owner and the admin of Demo (ADR 0510).
    expect(admin!.isOwner).toBe(true);
    expect(await listMembershipsOf(database, admin!.id)).toEqual([{ accountId: demo!.accountId, accountName: "Demo", role: "admin" }]);
  });

  it("provisions a separate dashboard key for the default account", async () => {
    const database = first.ctx.database;
    const demo = first.firstStart!.demo!;
    const key = await getDashboardApiKey(database, { secret: TEST_SECRET });
    expect(key).toMatch(/^mr_/);
    expect(key).not.toBe(demo.apiKey);
    expect(await getDashboardApiKey(database, { secret: TEST_SECRET })).toBe(key);
    expect(await authenticateApiKey(database, `Bearer ${key}`)).toMatchObject({ ok: true, key: { accountId: demo.accountId } });
    expect((await listApiKeys(database, demo.accountId)).map((k) => k.label).sort()).toEqual(["dashboard", "demo"]);
    // Stored sealed, never in plain text (ADR 0510).
    const stored = await first.ctx.database.pool.query<{ sealed: string }>("SELECT sealed FROM dashboard_api_keys");
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]!.sealed).not.toContain(key!.slice(3));
    const plain = await first.ctx.database.pool.query("SELECT key FROM instance_settings WHERE value = $1", [key]);
    expect(plain.rowCount).toBe(0);
  });

  it("replaces the dashboard key when it has been revoked", async () => {
    const database = first.ctx.database;
    const demo = first.firstStart!.demo!;
    const old = await getDashboardApiKey(database, { secret: TEST_SECRET });
    const dashboardKey = (await listApiKeys(database, demo.accountId)).find((k) => k.label === "dashboard" && !k.revokedAt)!;
    await revokeApiKey(database, dashboardKey.id);
    const fresh = await getDashboardApiKey(database, { secret: TEST_SECRET });
    expect(fresh).not.toBe(old);
    expect(await authenticateApiKey(database, `Bearer ${fresh}`)).toMatchObject({ ok: true });
  });

  it("prints nothing secret and creates nothing on later starts", async () => {
    const second = await startTestApp({ DATABASE_URL: databaseUrl });
    cleanups.push(() => second.stop());
    expect(second.firstStart?.demo).toBeUndefined();
    expect(await listAccounts(second.ctx.database)).toHaveLength(1);
    expect(await listStaffUsers(second.ctx.database)).toHaveLength(1);
  });

  it("provisions once when two processes start together on a fresh database", async () => {
    const url = await createTestDatabase();
    const config = buildConfig({ DATABASE_URL: url, LOG_LEVEL: "silent" });
    const databases: Database[] = [openDatabase(url, { max: 2 }), openDatabase(url, { max: 2 })];
    cleanups.push(async () => {
      for (const d of databases) await d.close();
    });
    const contexts = databases.map((database) => ({ config, database, log: createLogger("silent") }) as unknown as AppContext);
    const reports = await Promise.all(contexts.map((ctx) => ensureFirstStart(ctx)));
    expect(reports.filter((r) => r.demo)).toHaveLength(1);
    expect(await listAccounts(databases[0]!)).toHaveLength(1);
    expect(await listStaffUsers(databases[0]!)).toHaveLength(1);
  });
});
