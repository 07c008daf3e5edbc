import { beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey } from "../../lib/domain/accounts/api-keys";
import { getDashboardApiKey } from "../../lib/domain/staff/bootstrap";
import { openDatabase } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";
import { runCli, runCliJson } from "./cli-support";

/** The dashboard's secret these calls seal its keys with (AUTH_SECRET or the data directory's, docs/adr/0508). */
const TEST_SECRET = "a-test-secret-of-enough-length";

interface Created {
  accountId: string;
  name: string;
  plan: string;
  status: string;
  apiKey: string;
  webhookSigningKey: string;
  domain?: { name: string; status: string };
  limits: { perMinute: number | null; perHour: number | null; perDay: number | null };
}

/** What a client of the API would get for this key (the same check POST /email makes). */
async function authCode(url: string, apiKey: string): Promise<number | "ok"> {
  const database = openDatabase(url, { max: 1 });
  try {
    const r = await authenticateApiKey(database, `Bearer ${apiKey}`);
    return r.ok ? "ok" : r.code;
  } finally {
    await database.close();
  }
}

describe("mailroom accounts and keys", { timeout: 180_000 }, () => {
  let env: Record<string, string>;
  let url: string;
  let shop: Created;
  beforeAll(async () => {
    url = await createTestDatabase();
    env = { DATABASE_URL: url };
  });

  it("creates an account with a working API key, a signing key and a verified domain", async () => {
    shop = await runCliJson<Created>(["accounts", "create", "--name", "Shop", "--plan", "starter", "--domain", "Shop.Example", "--verified"], env);
    expect(shop).toMatchObject({ name: "Shop", plan: "starter", status: "active", domain: { name: "shop.example", status: "verified" } });
    expect(shop.accountId).toMatch(/^[0-9a-f-]{36}$/);
    expect(shop.apiKey).toMatch(/^mr_[A-Za-z0-9_-]{43}$/);
    expect(shop.webhookSigningKey).toMatch(/^whsec_/);
    expect(shop.limits).toEqual({ perMinute: 50, perHour: 300, perDay: 500 });
    expect(await authCode(url, shop.apiKey)).toBe("ok");
  });

  it("lists accounts as JSON and as a table", async () => {
    await runCliJson(["accounts", "create", "--name", "Bench", "--plan", "Unlimited"], env);
    const list = await runCliJson<Created[]>(["accounts", "list"], env);
    expect(list.map((a) => [a.name, a.plan, a.status])).toEqual([
      ["Shop", "starter", "active"],
      ["Bench", "unlimited", "active"],
    ]);
    const table = await runCli(["accounts", "list"], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+PLAN\s+STATUS/);
    expect(table.stdout).toContain(shop.accountId);
  });

  it("suspends an account (its keys answer code 12) and activates it again", async () => {
    const suspended = await runCliJson<Created>(["accounts", "suspend", shop.accountId], env);
    expect(suspended.status).toBe("suspended");
    expect(await authCode(url, shop.apiKey)).toBe(12);
    expect((await runCliJson<Created>(["accounts", "activate", "Shop"], env)).status).toBe("active");
    expect(await authCode(url, shop.apiKey)).toBe("ok");
  });

  it("makes another account the default, and the dashboard's key follows it", async () => {
    const bench = await runCliJson<Created & { isDefault: boolean }>(["accounts", "set-default", "Bench"], env);
    expect(bench.isDefault).toBe(true);
    const list = await runCliJson<(Created & { isDefault: boolean })[]>(["accounts", "list"], env);
    expect(list.filter((a) => a.isDefault).map((a) => a.name)).toEqual(["Bench"]);
    // Keys without --account now go to Bench.
    const key = await runCliJson<{ accountId: string }>(["keys", "create"], env);
    expect(key.accountId).toBe(bench.accountId);

    const database = openDatabase(url, { max: 2 });
    try {
      const dashboardKey = await getDashboardApiKey(database, { secret: TEST_SECRET });
      expect(await authenticateApiKey(database, `Bearer ${dashboardKey}`)).toMatchObject({ ok: true, key: { accountId: bench.accountId } });
      await runCliJson(["accounts", "set-default", shop.accountId], env);
      const moved = await getDashboardApiKey(database, { secret: TEST_SECRET });
      expect(moved).not.toBe(dashboardKey);
      expect(await authenticateApiKey(database, `Bearer ${moved}`)).toMatchObject({ ok: true, key: { accountId: shop.accountId } });
    } finally {
      await database.close();
    }
  });

  it("overrides limits and restores the plan's value", async () => {
    const limited = await runCliJson<Created>(
      ["accounts", "set-limits", shop.accountId, "--per-minute", "5", "--per-hour", "60", "--per-day", "100"],
      env,
    );
    expect(limited.limits).toEqual({ perMinute: 5, perHour: 60, perDay: 100 });
    const restored = await runCliJson<Created>(["accounts", "set-limits", shop.accountId, "--per-minute", "plan"], env);
    expect(restored.limits).toEqual({ perMinute: 50, perHour: 60, perDay: 100 });
  });

  it("rotates the webhook signing key", async () => {
    const rotated = await runCliJson<{ accountId: string; webhookSigningKey: string }>(["accounts", "rotate-signing-key", shop.accountId], env);
    expect(rotated.accountId).toBe(shop.accountId);
    expect(rotated.webhookSigningKey).toMatch(/^whsec_/);
    expect(rotated.webhookSigningKey).not.toBe(shop.webhookSigningKey);
  });

  it("creates, lists and revokes keys; a revoked key answers code 13", async () => {
    const created = await runCliJson<{ apiKey: string; id: string; label: string }>(
      ["keys", "create", "--account", shop.accountId, "--label", "billing service"],
      env,
    );
    expect(created.apiKey).toMatch(/^mr_/);
    expect(await authCode(url, created.apiKey)).toBe("ok");
    const keys = await runCliJson<{ id: string; label: string; prefix: string; status: string }[]>(["keys", "list", "--account", "Shop"], env);
    expect(keys.map((k) => k.label).sort()).toEqual(["billing service", "dashboard", "default"]);
    const listed = keys.find((k) => k.id === created.id)!;
    expect(listed).toMatchObject({ label: "billing service", status: "active", prefix: created.apiKey.slice(0, 11) });
    expect(JSON.stringify(keys)).not.toContain(created.apiKey);

    expect(await runCliJson(["keys", "revoke", created.id], env)).toMatchObject({ id: created.id, status: "revoked" });
    expect(await authCode(url, created.apiKey)).toBe(13);
    const again = await runCli(["keys", "revoke", created.id], env);
    expect(again).toMatchObject({ code: 1, stderr: `error: No active API key with id ${created.id}\n` });
  });

  it("fails with one clear line and a non-zero exit", async () => {
    const cases: [string[], string][] = [
      [["accounts", "create", "--name", "X", "--plan", "gold"], 'error: Unknown plan "gold": use trial, starter, business, growth or unlimited\n'],
      [["accounts", "suspend", "00000000-0000-4000-8000-000000000000"], "error: No account with id 00000000-0000-4000-8000-000000000000\n"],
      [["keys", "list", "--account", "Nope"], 'error: No account with id or name "Nope"\n'],
      [["accounts", "create", "--name", "Y", "--plan", "trial", "--domain", "not a domain"], 'error: "not a domain" is not a domain name\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await runCli(args, env);
      expect({ args, code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ args, code: 1, stderr, stdout: "" });
    }
    // The failed create with a bad domain left no account behind.
    expect((await runCliJson<Created[]>(["accounts", "list"], env)).map((a) => a.name)).toEqual(["Shop", "Bench"]);
  });

  it("names a bad database in one line", async () => {
    const bad = new URL(url);
    bad.port = "1";
    const r = await runCli(["accounts", "list"], { DATABASE_URL: bad.toString() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Cannot use the database at 127\.0\.0\.1:1\/.*\(ECONNREFUSED\): check DATABASE_URL/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
