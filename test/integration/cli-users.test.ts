import { beforeAll, describe, expect, it } from "vitest";
import { changeOwnPassword, verifyStaffPassword } from "../../lib/domain/staff/staff-users";
import { openDatabase } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";
import { runCli, runCliJson } from "./cli-support";

interface UserJson {
  email: string;
  role: string;
  password?: string;
  lastLoginAt: string | null;
  mustChangePassword: boolean;
}

async function canSignIn(url: string, email: string, password: string): Promise<boolean> {
  const database = openDatabase(url, { max: 1 });
  try {
    return (await verifyStaffPassword(database, email, password)) !== null;
  } finally {
    await database.close();
  }
}

describe("mailroom users", { timeout: 180_000 }, () => {
  let url: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    url = await createTestDatabase();
    env = { DATABASE_URL: url };
  });

  it("adds users who can then sign in", async () => {
    const ann = await runCliJson<UserJson>(["users", "add", "--email", "Ann@Example.com", "--role", "admin", "--password", "s3cret-pass"], env);
    expect(ann).toMatchObject({ email: "ann@example.com", role: "admin", lastLoginAt: null });
    expect(ann.password).toBeUndefined();
    expect(ann.mustChangePassword).toBe(false); // the admin chose it
    expect(await canSignIn(url, "ann@example.com", "s3cret-pass")).toBe(true);

    const bob = await runCliJson<UserJson>(["users", "add", "--email", "bob@example.com", "--role", "support"], env);
    expect(bob.password).toMatch(/^[A-Za-z0-9_-]{24}$/); // generated, shown once
    expect(bob.mustChangePassword).toBe(true); // so the dashboard asks bob to choose his own
    expect(await canSignIn(url, "bob@example.com", bob.password!)).toBe(true);

    const list = await runCliJson<UserJson[]>(["users", "list"], env);
    expect(list.map((u) => [u.email, u.role])).toEqual([
      ["ann@example.com", "admin"],
      ["bob@example.com", "support"],
    ]);
    expect(list[0]!.lastLoginAt).not.toBeNull();
    expect(JSON.stringify(list)).not.toMatch(/argon2|password/);
  });

  it("changes roles and passwords, and never removes the last admin", async () => {
    expect(await runCliJson<UserJson>(["users", "set-role", "bob@example.com", "marketing"], env)).toMatchObject({ role: "marketing" });
    const lastAdmin = await runCli(["users", "remove", "ann@example.com"], env);
    expect(lastAdmin).toMatchObject({
      code: 1,
      stderr: "error: ann@example.com is the last admin: add another admin before removing it\n",
    });
    const demote = await runCli(["users", "set-role", "ann@example.com", "support"], env);
    expect(demote.code).toBe(1);

    await runCliJson(["users", "set-password", "bob@example.com", "--password", "another-pass"], env);
    expect(await canSignIn(url, "bob@example.com", "another-pass")).toBe(true);
    const generated = await runCliJson<UserJson>(["users", "set-password", "bob@example.com"], env);
    expect(generated.mustChangePassword).toBe(true);
    // Bob chooses his own (the dashboard's /account/password): the request is cleared.
    const database = openDatabase(url, { max: 1 });
    try {
      await expect(changeOwnPassword(database, "bob@example.com", "wrong-current", "bobs-own-pass")).rejects.toThrow("The current password is not right");
      await expect(changeOwnPassword(database, "bob@example.com", generated.password!, generated.password!)).rejects.toThrow("differs from the current one");
      await expect(changeOwnPassword(database, "bob@example.com", generated.password!, "short")).rejects.toThrow("at least 8 characters");
      expect(await changeOwnPassword(database, "bob@example.com", generated.password!, "bobs-own-pass")).toMatchObject({ mustChangePassword: false });
    } finally {
      await database.close();
    }
    expect(await canSignIn(url, "bob@example.com", "bobs-own-pass")).toBe(true);
    expect(await runCliJson(["users", "remove", "bob@example.com"], env)).toMatchObject({ email: "bob@example.com", removed: true });
    expect((await runCliJson<UserJson[]>(["users", "list"], env)).map((u) => u.email)).toEqual(["ann@example.com"]);
  });

  it("refuses bad input in one line", async () => {
    const cases: [string[], string][] = [
      [["users", "add", "--email", "c@example.com", "--role", "owner", "--password", "long-enough"], 'error: Unknown role "owner": use admin, support or marketing\n'],
      [["users", "add", "--email", "c@example.com", "--role", "support", "--password", "short"], "error: A password needs at least 8 characters\n"],
      [["users", "add", "--email", "ann@example.com", "--role", "support", "--password", "long-enough"], "error: A staff user with the email ann@example.com already exists\n"],
      [["users", "remove", "nobody@example.com"], "error: No staff user with the email nobody@example.com\n"],
    ];
    for (const [args, stderr] of cases) {
      const r = await runCli(args, env);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 1, stderr });
    }
  });
});
