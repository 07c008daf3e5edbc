import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "../../lib/domain/shared/domain-error";
import {
  addStaffUser,
  changeStaffRole,
  listStaffUsers,
  removeStaffUser,
  setStaffPassword,
  verifyStaffPassword,
} from "../../lib/domain/staff/staff-users";
import { openDatabase, type Database } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";

describe("staff users", () => {
  let database: Database;
  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), { max: 4 });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("adds a user with a hashed password and signs it in", async () => {
    const user = await addStaffUser(database, { email: " Ann@Example.COM ", role: "Admin", password: "correct horse", name: "Ann" });
    expect(user).toMatchObject({ email: "ann@example.com", role: "admin", name: "Ann", lastLoginAt: null });
    const { rows } = await database.pool.query("SELECT password_hash FROM staff_users WHERE email = 'ann@example.com'");
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(rows[0].password_hash).not.toContain("correct horse");

    expect(await verifyStaffPassword(database, "ann@example.com", "wrong password")).toBeNull();
    const signedIn = await verifyStaffPassword(database, "ANN@example.com", "correct horse");
    expect(signedIn).toMatchObject({ email: "ann@example.com", role: "admin" });
    expect(signedIn!.lastLoginAt).toBeInstanceOf(Date);
    const [listed] = (await listStaffUsers(database)).filter((u) => u.email === "ann@example.com");
    expect(listed!.lastLoginAt).toBeInstanceOf(Date);
    expect(listed).not.toHaveProperty("passwordHash");
  });

  it("returns null for an unknown email, after about as long as a wrong password", async () => {
    await verifyStaffPassword(database, "nobody@example.com", "x"); // warm the dummy hash
    // The fastest of five each, interleaved: one sample slowed by a busy machine says nothing of the code.
    const missing: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      expect(await verifyStaffPassword(database, "nobody@example.com", "whatever1")).toBeNull();
      missing.push(performance.now() - t0);
      const t1 = performance.now();
      expect(await verifyStaffPassword(database, "ann@example.com", "whatever1")).toBeNull();
      wrong.push(performance.now() - t1);
    }
    expect(Math.min(...missing)).toBeGreaterThan(Math.min(...wrong) / 4);
  });

  it("refuses bad input with clear messages", async () => {
    await expect(addStaffUser(database, { email: "ann@example.com", role: "support", password: "long enough" })).rejects.toThrow(
      "already exists",
    );
    await expect(addStaffUser(database, { email: "bob@example.com", role: "boss", password: "long enough" })).rejects.toThrow(
      'Unknown role "boss"',
    );
    await expect(addStaffUser(database, { email: "not-an-email", role: "support", password: "long enough" })).rejects.toThrow(
      "not an email address",
    );
    await expect(addStaffUser(database, { email: "bob@example.com", role: "support", password: "short" })).rejects.toThrow(
      "at least 8",
    );
  });

  it("never removes or demotes the last admin", async () => {
    await expect(removeStaffUser(database, "ann@example.com")).rejects.toBeInstanceOf(DomainError);
    await expect(changeStaffRole(database, "ann@example.com", "support")).rejects.toThrow("last admin");

    await addStaffUser(database, { email: "cy@example.com", role: "marketing", password: "password-cy" });
    await changeStaffRole(database, "cy@example.com", "admin");
    // Two admins removed at the same time: exactly one removal wins.
    const results = await Promise.allSettled([
      removeStaffUser(database, "ann@example.com"),
      removeStaffUser(database, "cy@example.com"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const admins = (await listStaffUsers(database)).filter((u) => u.role === "admin");
    expect(admins).toHaveLength(1);
  });

  it("removes non-admins, changes roles and passwords", async () => {
    await addStaffUser(database, { email: "dee@example.com", role: "support", password: "password-dee" });
    expect(await changeStaffRole(database, "dee@example.com", "marketing")).toMatchObject({ role: "marketing" });
    await setStaffPassword(database, "dee@example.com", "new-password-dee");
    expect(await verifyStaffPassword(database, "dee@example.com", "password-dee")).toBeNull();
    expect(await verifyStaffPassword(database, "dee@example.com", "new-password-dee")).not.toBeNull();
    expect(await removeStaffUser(database, "dee@example.com")).toMatchObject({ email: "dee@example.com" });
    await expect(removeStaffUser(database, "dee@example.com")).rejects.toThrow("No staff user");
  });
});
