import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase, type Database } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";
import { runCli, runCliJson } from "./cli-support";

describe("mailroom inbound routes", { timeout: 180_000 }, () => {
  let env: Record<string, string>;
  let database: Database;
  let accountId: string;
  beforeAll(async () => {
    const url = await createTestDatabase();
    env = { DATABASE_URL: url, MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "true" };
    database = openDatabase(url, { max: 2 });
    ({ accountId } = await createAccount(database, { name: "Inbound CLI", plan: "trial", domain: "in.shop.example", verified: true }));
    await createAccount(database, { name: "Other", plan: "trial", domain: "other.example", verified: true });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("adds, lists and removes routes of the account's verified domains", async () => {
    const added = await runCliJson<{ routeId: number; match: string }>(["inbound", "routes", "add", "--account", accountId, "*@In.Shop.example", "http://127.0.0.1:9/in"], env);
    expect(added).toMatchObject({ match: "*@in.shop.example", routeId: expect.any(Number) });
    const human = await runCli(["inbound", "routes", "list", "--account", accountId], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("*@in.shop.example");

    const foreign = await runCli(["inbound", "routes", "add", "--account", accountId, "help@other.example", "http://127.0.0.1:9/in"], env);
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toContain("other.example is not a verified domain of the account");
    const badUrl = await runCli(["inbound", "routes", "add", "--account", accountId, "a@in.shop.example", "ftp://x"], env);
    expect(badUrl.code).not.toBe(0);

    expect(await runCliJson(["inbound", "routes", "remove", "--account", accountId, String(added.routeId)], env)).toEqual({ removed: true, routeId: added.routeId });
    expect(await runCliJson(["inbound", "routes", "list", "--account", accountId], env)).toEqual([]);
    expect((await runCli(["inbound", "routes", "remove", "--account", accountId, String(added.routeId)], env)).code).not.toBe(0);
  });
});
