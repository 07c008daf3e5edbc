import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCli, runCliJson } from "./cli-support";

/** `mailroom egress` (docs/cli.md, "Egress addresses"; docs/egress.md) on the database of a running app whose workers are off. */
// Each command is a node process of its own: seconds apiece on a loaded machine.
describe("mailroom egress", { timeout: 300_000 }, () => {
  let app: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_DELIVERY: "mx" });
    env = { DATABASE_URL: app.ctx.database.url, MAILROOM_DELIVERY: "mx" };
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("adds addresses to pools, assigns an account, lists each with its warm-up day and caps, removes one, and refuses bad input", async () => {
    expect((await runCli(["egress", "list"], env)).stdout).toMatch(/^No egress address/);

    const added = await runCliJson(["egress", "add", "127.0.0.2", "--ehlo", "Out2.Mail.Example.com.", "--pool", "transactional"], env);
    expect(added).toMatchObject({ address: "127.0.0.2", ehloName: "out2.mail.example.com", pool: "transactional" });
    await runCliJson(["egress", "add", "2001:DB8:0:0::7", "--ehlo", "out7.mail.example.com", "--warm"], env);

    const acct = await createTestAccount(app.ctx, { name: "Egress Co" });
    expect(await runCliJson(["egress", "assign", "Egress Co", "transactional"], env)).toEqual({ accountId: acct.accountId, pool: "transactional" });

    type View = { pools: { name: string; addresses: number; accounts: number }[]; addresses: { address: string; pool: string; warmupDay: number; warm: boolean; caps: { daily: number | null } }[] };
    const view = await runCliJson<View>(["egress", "list"], env);
    expect(view.addresses).toEqual([
      expect.objectContaining({ address: "2001:db8::7", pool: "default", warm: true, caps: { hourly: null, daily: null } }),
      expect.objectContaining({ address: "127.0.0.2", pool: "transactional", warmupDay: 1, warm: false, caps: { hourly: 8, daily: 50 } }),
    ]);
    expect(view.pools).toEqual([
      expect.objectContaining({ name: "default", addresses: 1, accounts: 0 }),
      expect.objectContaining({ name: "transactional", addresses: 1, accounts: 1 }),
    ]);
    const human = await runCli(["egress", "list"], env);
    expect(human.stdout).toMatch(/127\.0\.0\.2\s+transactional\s+out2\.mail\.example\.com\s+day 1\s+0\/50 a day, 0\/8 an hour/);

    expect(await runCli(["egress", "add", "300.1.2.3", "--ehlo", "a.example.com"], env)).toMatchObject({ code: 1, stderr: 'error: "300.1.2.3" is not an IPv4 or IPv6 address\n' });
    expect((await runCli(["egress", "add", "127.0.0.3", "--ehlo", "localhost"], env)).stderr).toMatch(/--ehlo: "localhost" is not a fully qualified host name/);
    expect((await runCli(["egress", "add", "127.0.0.3", "--ehlo", "a.example.com", "--pool", "Bad Pool!"], env)).stderr).toMatch(/--pool: .* is not a pool name/);
    expect((await runCli(["egress", "assign", "Egress Co", "nowhere"], env)).stderr).toMatch(/There is no egress pool nowhere/);
    expect((await runCli(["egress", "assign", "No such account", "default"], env)).stderr).toMatch(/No account with id or name/);
    expect(await runCliJson(["egress", "remove", "2001:db8:0::7"], env)).toEqual({ removed: "2001:db8::7" });
    expect(await runCli(["egress", "remove", "2001:db8::7"], env)).toMatchObject({ code: 1, stderr: "error: 2001:db8::7 is not an egress address\n" });
    expect((await runCliJson<View>(["egress", "list"], env)).addresses.map((x) => x.address)).toEqual(["127.0.0.2"]);
    // Back to the default pool: the assignment is removed.
    await runCliJson(["egress", "assign", acct.accountId, "default"], env);
    const { rows } = await app.ctx.database.pool.query("SELECT * FROM egress_assignments");
    expect(rows).toEqual([]);
  });
});
