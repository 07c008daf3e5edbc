import { beforeAll, describe, expect, it } from "vitest";
import { findSuppressedEmails } from "../../lib/domain/accounts/suppressions";
import { openDatabase } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";
import { runCli, runCliJson } from "./cli-support";

describe("mailroom suppressions", { timeout: 180_000 }, () => {
  let url: string;
  let env: Record<string, string>;
  let accountId: string;
  beforeAll(async () => {
    url = await createTestDatabase();
    env = { DATABASE_URL: url };
    ({ accountId } = await runCliJson<{ accountId: string }>(["accounts", "create", "--name", "Shop", "--plan", "trial"], env));
  });

  it("adds, lists, searches and removes suppressed addresses", async () => {
    expect(await runCliJson(["suppressions", "add", "--account", accountId, "Ann@Example.org"], env)).toEqual({
      accountId,
      email: "ann@example.org",
      added: true,
    });
    await runCliJson(["suppressions", "add", "--account", accountId, "bob@example.net", "--reason", "complaint", "--detail", "phoned us"], env);
    const again = await runCliJson<{ added: boolean }>(["suppressions", "add", "--account", accountId, "ann@example.org"], env);
    expect(again.added).toBe(false);

    // The send path sees what the CLI added.
    const database = openDatabase(url, { max: 1 });
    try {
      const found = await findSuppressedEmails(database, accountId, ["ANN@example.org", "carl@example.org"]);
      expect([...found.keys()]).toEqual(["ann@example.org"]);
    } finally {
      await database.close();
    }

    const all = await runCliJson<{ email: string; reason: string; detail: string }[]>(["suppressions", "list", "--account", accountId], env);
    expect(all.map((s) => [s.email, s.reason, s.detail])).toEqual([
      ["ann@example.org", "manual", ""],
      ["bob@example.net", "complaint", "phoned us"],
    ]);
    const searched = await runCliJson<{ email: string }[]>(["suppressions", "list", "--account", accountId, "--search", "example.net"], env);
    expect(searched.map((s) => s.email)).toEqual(["bob@example.net"]);

    expect(await runCliJson(["suppressions", "remove", "--account", accountId, "ann@example.org"], env)).toMatchObject({ removed: true });
    const gone = await runCli(["suppressions", "remove", "--account", accountId, "ann@example.org"], env);
    expect(gone).toMatchObject({ code: 1, stderr: "error: ann@example.org is not on the suppression list of Shop\n" });
  });

  it("refuses an unknown reason and a malformed address", async () => {
    const reason = await runCli(["suppressions", "add", "--account", accountId, "x@example.org", "--reason", "spam"], env);
    expect(reason).toMatchObject({ code: 1, stderr: 'error: Unknown reason "spam": use hard-bounce, complaint, unsubscribe, manual\n' });
    const email = await runCli(["suppressions", "add", "--account", accountId, "not-an-address"], env);
    expect(email).toMatchObject({ code: 1, stderr: 'error: "not-an-address" is not an email address\n' });
  });
});
