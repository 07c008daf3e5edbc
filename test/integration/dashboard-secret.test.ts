import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConfig, ConfigError } from "../../lib/config";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { authenticateApiKey } from "../../lib/domain/accounts/api-keys";
import { getDashboardApiKey } from "../../lib/domain/staff/bootstrap";
import { AUTH_SECRET_FILE, AuthSecretError, LEGACY_AUTH_SECRET_SETTING, resolveDashboardSecret } from "../../lib/domain/staff/dashboard-auth-secret";
import { openDatabase, type Database } from "../../lib/storage/database";
import { startServer } from "../../server";
import { createTestDatabase } from "../support/test-database";

/**
 * The dashboard's secret lives outside the database (docs/adr/0508), on a
 * real PostgreSQL: generated into the data directory, an old installation's
 * moved out of instance_settings with its sealed keys still opening. The
 * server with the dashboard, a cookie forged from the database: e2e/session-security.spec.ts.
 */
describe("the dashboard's secret", () => {
  let database: Database;
  let accountId: string;
  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), { max: 4 });
    accountId = (await createAccount(database, { name: "Acme", plan: "starter", keyLabel: "ci" })).accountId;
  });
  afterAll(async () => {
    await database?.close();
  });
  const newDir = () => mkdtempSync(path.join(os.tmpdir(), "mailroom-secret-"));
  const settings = async () => (await database.pool.query<{ key: string; value: string }>("SELECT key, value FROM instance_settings")).rows;

  it("without AUTH_SECRET: generated once into <data dir>/auth-secret, mode 0600, and nowhere in the database", async () => {
    const dir = newDir();
    const first = await resolveDashboardSecret(database, { dataDir: dir });
    expect(first.source).toBe("file");
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    const file = path.join(dir, AUTH_SECRET_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim()).toBe(first.secret);
    expect((await settings()).some((r) => r.value.includes(first.secret) || r.key === LEGACY_AUTH_SECRET_SETTING)).toBe(false);
    // A dashboard key sealed with it opens with it, and nothing in the database opens it.
    const key = await getDashboardApiKey(database, { accountId, secret: first.secret });
    const dump = JSON.stringify((await database.pool.query("SELECT * FROM instance_settings")).rows);
    expect(dump).not.toContain(first.secret);
    expect((await resolveDashboardSecret(database, { dataDir: dir })).secret).toBe(first.secret); // later starts read it
    expect(await getDashboardApiKey(database, { accountId, secret: first.secret })).toBe(key);
  });

  it("processes starting at once on one data directory agree on one secret, and leave no temporary file", async () => {
    const dir = newDir();
    const all = await Promise.all(Array.from({ length: 12 }, () => resolveDashboardSecret(database, { dataDir: dir })));
    expect(new Set(all.map((r) => r.secret)).size).toBe(1);
    expect(readdirSync(dir)).toEqual([AUTH_SECRET_FILE]);
  });

  it("moves an old installation's secret from instance_settings to the file once: its sealed keys keep opening", async () => {
    const dir = newDir();
    const legacy = randomBytes(32).toString("base64url");
    await database.pool.query("INSERT INTO instance_settings (key, value) VALUES ($1, $2)", [LEGACY_AUTH_SECRET_SETTING, legacy]);
    const key = await getDashboardApiKey(database, { accountId, secret: legacy }); // sealed under the old secret (remade: the previous one was sealed under another)
    const moved = await resolveDashboardSecret(database, { dataDir: dir });
    expect(moved).toEqual({ secret: legacy, source: "file", movedFromDatabase: true });
    expect(readFileSync(path.join(dir, AUTH_SECRET_FILE), "utf8").trim()).toBe(legacy);
    expect(statSync(path.join(dir, AUTH_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect((await settings()).map((r) => r.key)).not.toContain(LEGACY_AUTH_SECRET_SETTING);
    expect(await getDashboardApiKey(database, { accountId, secret: moved.secret })).toBe(key); // not revoked, not remade
    expect(await authenticateApiKey(database, `Bearer ${key}`)).toMatchObject({ ok: true });
    expect((await resolveDashboardSecret(database, { dataDir: dir })).movedFromDatabase).toBe(false); // once
  });

  it("with AUTH_SECRET (or a file already there), keys sealed with the old secret are sealed again with it, then the old one is deleted", async () => {
    const legacy = randomBytes(32).toString("base64url");
    await database.pool.query("INSERT INTO instance_settings (key, value) VALUES ($1, $2)", [LEGACY_AUTH_SECRET_SETTING, legacy]);
    const key = await getDashboardApiKey(database, { accountId, secret: legacy });
    const configured = "an-operator-chosen-secret-of-enough-length";
    const resolved = await resolveDashboardSecret(database, { configured, dataDir: newDir() });
    expect(resolved).toEqual({ secret: configured, source: "AUTH_SECRET", movedFromDatabase: true });
    expect((await settings()).map((r) => r.key)).not.toContain(LEGACY_AUTH_SECRET_SETTING);
    expect(await getDashboardApiKey(database, { accountId, secret: configured })).toBe(key);
    const { rows } = await database.pool.query<{ sealed: string }>("SELECT sealed FROM dashboard_api_keys WHERE account_id = $1", [accountId]);
    expect(rows[0]!.sealed).not.toContain(key!.slice(3));
  });

  it("tightens a file others may read, and refuses one that holds no secret, naming it", async () => {
    const dir = newDir();
    const file = path.join(dir, AUTH_SECRET_FILE);
    writeFileSync(file, "a-secret-someone-wrote-by-hand-000\n");
    chmodSync(file, 0o644);
    expect((await resolveDashboardSecret(database, { dataDir: dir })).secret).toBe("a-secret-someone-wrote-by-hand-000");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const bad of ["", "short\n", "two words that are long enough\n"]) {
      writeFileSync(file, bad);
      const err = await resolveDashboardSecret(database, { dataDir: dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthSecretError);
      expect((err as Error).message).toContain(file);
    }
  });

  it("refuses to start the dashboard on DATABASE_URL without AUTH_SECRET, naming the variable, before opening anything", async () => {
    const config = buildConfig({ NODE_ENV: "test", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", PORT: "0", LOG_LEVEL: "silent" });
    const err = await startServer({ config, dashboard: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^AUTH_SECRET: required with DATABASE_URL/);
  });
});
