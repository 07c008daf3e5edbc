import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../lib/storage/migrate";
import { createTestDatabase } from "../support/test-database";
import { runCli, runCliJson } from "./cli-support";

interface MemberJson {
  email: string;
  role: string;
  owner: boolean;
  memberships: { accountId: string; accountName: string; role: string }[];
}
interface AccountJson {
  accountId: string;
  name: string;
}

const roles = (u: MemberJson) => u.memberships.map((m) => `${m.accountName}:${m.role}`);

describe("mailroom users: membership of accounts (ADR 0510)", { timeout: 180_000 }, () => {
  let env: Record<string, string>;
  let demo: AccountJson;
  let acme: AccountJson;
  beforeAll(async () => {
    env = { DATABASE_URL: await createTestDatabase() };
    demo = await runCliJson<AccountJson>(["accounts", "create", "--name", "Demo", "--plan", "unlimited"], env);
    await runCliJson(["accounts", "set-default", demo.accountId], env);
    acme = await runCliJson<AccountJson>(["accounts", "create", "--name", "Acme", "--plan", "growth", "--domain", "acme.test", "--verified"], env);
  });

  it("adds a user as a member of the default account, or of --account, and an owner with --owner", async () => {
    const ann = await runCliJson<MemberJson>(["users", "add", "--email", "ann@example.com", "--role", "admin", "--owner", "--password", "s3cret-pass"], env);
    expect(ann).toMatchObject({ email: "ann@example.com", role: "admin", owner: true });
    expect(roles(ann)).toEqual(["Demo:admin"]);
    const sam = await runCliJson<MemberJson>(["users", "add", "--email", "sam@example.com", "--role", "support", "--account", "Acme", "--password", "s3cret-pass"], env);
    expect(sam.owner).toBe(false);
    expect(roles(sam)).toEqual(["Acme:support"]);
  });

  it("grants, changes and revokes a role per account; list shows memberships and filters by account", async () => {
    expect(roles(await runCliJson<MemberJson>(["users", "grant", "--email", "sam@example.com", "--account", demo.accountId, "--role", "marketing"], env))).toEqual([
      "Acme:support",
      "Demo:marketing",
    ]);
    // Granting again changes the role in that account only.
    expect(roles(await runCliJson<MemberJson>(["users", "grant", "--email", "sam@example.com", "--account", "Acme", "--role", "admin"], env))).toEqual([
      "Acme:admin",
      "Demo:marketing",
    ]);
    const all = await runCliJson<MemberJson[]>(["users", "list"], env);
    expect(all.map((u) => [u.email, roles(u)])).toEqual([
      ["ann@example.com", ["Demo:admin"]],
      ["sam@example.com", ["Acme:admin", "Demo:marketing"]],
    ]);
    const acmeMembers = await runCliJson<MemberJson[]>(["users", "list", "--account", "Acme"], env);
    expect(acmeMembers.map((u) => u.email)).toEqual(["sam@example.com"]);

    // An account keeps an admin: Sam is Acme's only one.
    const last = await runCli(["users", "revoke", "--email", "sam@example.com", "--account", "Acme"], env);
    expect(last).toMatchObject({ code: 1, stderr: "error: sam@example.com is the last admin of Acme: add another admin before changing or removing it\n" });
    await runCliJson(["users", "grant", "--email", "ann@example.com", "--account", "Acme", "--role", "admin"], env);
    expect(roles(await runCliJson<MemberJson>(["users", "revoke", "--email", "sam@example.com", "--account", "Acme"], env))).toEqual(["Demo:marketing"]);
    expect((await runCliJson<MemberJson[]>(["users", "list", "--account", acme.accountId], env)).map((u) => u.email)).toEqual(["ann@example.com"]);
    const text = await runCli(["users", "list"], env);
    expect(text.stdout).toMatch(/sam@example\.com\s+support\s+-\s+Demo:marketing/);
  });

  it("refuses bad input in one line", async () => {
    const cases: [string[], string][] = [
      [["users", "grant", "--email", "sam@example.com", "--account", "Acme", "--role", "owner"], 'error: Unknown role "owner": use admin, support or marketing\n'],
      [["users", "grant", "--email", "nobody@example.com", "--account", "Acme", "--role", "admin"], "error: No staff user with the email nobody@example.com\n"],
      [["users", "grant", "--email", "sam@example.com", "--account", "Nowhere", "--role", "admin"], 'error: No account with id or name "Nowhere"\n'],
      [["users", "revoke", "--email", "sam@example.com", "--account", "Acme"], `error: sam@example.com is not a member of the account ${acme.accountId}\n`],
      [["users", "add", "--email", "x@example.com", "--role", "admin", "--account", "Nowhere"], 'error: No account with id or name "Nowhere"\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await runCli(args, env);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 1, stderr });
    }
  });

  it("sets and withdraws the owner flag", async () => {
    expect(await runCliJson<MemberJson>(["users", "set-owner", "sam@example.com", "yes"], env)).toMatchObject({ owner: true });
    expect(await runCliJson<MemberJson>(["users", "set-owner", "sam@example.com", "no"], env)).toMatchObject({ owner: false });
  });
});

describe("migration 0510 on an existing install", { timeout: 60_000 }, () => {
  it("makes every existing user a member of the default account with their role, and existing admins owners", async () => {
    const pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 2 });
    try {
      // Back to the state before 0510, with data an older version wrote.
      await pool.query(`DROP TABLE staff_memberships; DROP TABLE dashboard_api_keys;
        ALTER TABLE staff_users DROP COLUMN is_owner; ALTER TABLE sandbox_messages DROP COLUMN account_id;
        DELETE FROM schema_migrations WHERE name = '0510_staff_memberships.sql'`);
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO accounts (name, plan, webhook_signing_key, is_default) VALUES ('Old', 'unlimited', 'k', true), ('Other', 'unlimited', 'k', false)
         RETURNING id`,
      );
      await pool.query(`INSERT INTO staff_users (email, role, password_hash) VALUES ('a@x.test', 'admin', 'h'), ('m@x.test', 'marketing', 'h')`);
      await pool.query(`INSERT INTO instance_settings (key, value) VALUES ('dashboard_api_key', 'mr_plain_text_key')`);
      expect(await migrate(pool)).toEqual(["0510_staff_memberships.sql"]);

      const members = await pool.query<{ email: string; is_owner: boolean; account_id: string; role: string }>(
        `SELECT u.email, u.is_owner, m.account_id, m.role FROM staff_users u JOIN staff_memberships m ON m.user_id = u.id ORDER BY u.email`,
      );
      expect(members.rows).toEqual([
        { email: "a@x.test", is_owner: true, account_id: rows[0]!.id, role: "admin" },
        { email: "m@x.test", is_owner: false, account_id: rows[0]!.id, role: "marketing" },
      ]);
      // The plain-text dashboard key is gone (it is made again, sealed, on demand).
      expect((await pool.query(`SELECT 1 FROM instance_settings WHERE key LIKE 'dashboard_api_key%'`)).rowCount).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
