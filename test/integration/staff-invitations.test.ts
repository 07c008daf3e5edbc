import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../lib/domain/accounts/accounts";
import {
  acceptInvitation,
  acceptInvitationAsNewUser,
  createInvitation,
  findOpenInvitation,
  INVITATION_TTL_MS,
  listPendingInvitations,
  revokeInvitation,
} from "../../lib/domain/staff/staff-invitations";
import { accountsVisibleTo, addSsoStaffUser, addStaffUser, verifyStaffPassword } from "../../lib/domain/staff/staff-users";
import { openDatabase, type Database } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";

/**
 * Invitations to an account (ADR 0512) over real rows: no membership until
 * accepted, a single-use hashed token, an expiry, the invited address only.
 */
describe("staff invitations", () => {
  let database: Database;
  let a: string;
  let b: string;
  const memberships = async (email: string) =>
    ((await accountsVisibleTo(database, email))?.accounts ?? []).filter((x) => x.member).map((x) => [x.accountName, x.role]);

  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), { max: 4 });
    a = (await createAccount(database, { name: "A", plan: "trial", isDefault: true })).accountId;
    b = (await createAccount(database, { name: "B", plan: "trial" })).accountId;
    await addStaffUser(database, { email: "alice@a.test", role: "admin", password: "password-a1", accountId: a });
    await addStaffUser(database, { email: "carol@b.test", role: "admin", password: "password-c1", accountId: b, name: "Carol" });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("invites an existing user of another account: no membership until she accepts; then the invited role; the token works once", async () => {
    const { invitation, token } = await createInvitation(database, { accountId: a, email: " Carol@B.test ", role: "support", invitedBy: "alice@a.test" });
    expect(invitation).toMatchObject({ accountId: a, email: "carol@b.test", role: "support", invitedBy: "alice@a.test" });
    expect(invitation.expiresAt.getTime() - invitation.createdAt.getTime()).toBe(INVITATION_TTL_MS);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only the token's hash is stored.
    const { rows } = await database.pool.query("SELECT * FROM staff_invitations WHERE id = $1", [invitation.id]);
    expect(JSON.stringify(rows[0])).not.toContain(token);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await memberships("carol@b.test")).toEqual([["B", "admin"]]);
    expect((await listPendingInvitations(database, a)).map((i) => i.email)).toEqual(["carol@b.test"]);
    expect(await listPendingInvitations(database, b)).toEqual([]);

    // Someone else signed in cannot use it, and their attempt does not spend it.
    await expect(acceptInvitation(database, token, "alice@a.test")).rejects.toThrow("for carol@b.test");
    expect(await findOpenInvitation(database, token)).toMatchObject({ email: "carol@b.test", accountName: "A" });

    expect(await acceptInvitation(database, token, "CAROL@b.test")).toEqual({ accountId: a, role: "support" });
    expect(await memberships("carol@b.test")).toEqual([
      ["A", "support"],
      ["B", "admin"],
    ]);
    await expect(acceptInvitation(database, token, "carol@b.test")).rejects.toThrow("not valid");
    expect(await findOpenInvitation(database, token)).toBeUndefined();
    expect(await listPendingInvitations(database, a)).toEqual([]);
  });

  it("refuses an expired token, and a revoked one; revoking needs the invitation's own account", async () => {
    const past = new Date(Date.now() - INVITATION_TTL_MS - 60_000);
    const old = await createInvitation(database, { accountId: a, email: "late@x.test", role: "marketing", now: past });
    expect(await findOpenInvitation(database, old.token)).toBeUndefined();
    await addStaffUser(database, { email: "late@x.test", role: "support", password: "password-l1", accountId: b });
    await expect(acceptInvitation(database, old.token, "late@x.test")).rejects.toThrow("not valid");
    await expect(acceptInvitationAsNewUser(database, old.token, { password: "password-new" })).rejects.toThrow("not valid");
    // Listed as pending (the page marks it expired) until revoked.
    expect((await listPendingInvitations(database, a)).map((i) => i.email)).toEqual(["late@x.test"]);

    const fresh = await createInvitation(database, { accountId: a, email: "late@x.test", role: "marketing" });
    expect(await revokeInvitation(database, b, fresh.invitation.id)).toBe(false);
    expect(await revokeInvitation(database, a, fresh.invitation.id)).toBe(true);
    expect(await revokeInvitation(database, a, fresh.invitation.id)).toBe(false);
    await expect(acceptInvitation(database, fresh.token, "late@x.test")).rejects.toThrow("not valid");
    expect(await memberships("late@x.test")).toEqual([["B", "support"]]);
  });

  it("inviting the same address again replaces the pending invitation (the old link stops working)", async () => {
    const first = await createInvitation(database, { accountId: a, email: "twice@x.test", role: "support" });
    const second = await createInvitation(database, { accountId: a, email: "TWICE@x.test", role: "admin" });
    expect(await findOpenInvitation(database, first.token)).toBeUndefined();
    expect(await findOpenInvitation(database, second.token)).toMatchObject({ role: "admin" });
    expect((await listPendingInvitations(database, a)).filter((i) => i.email === "twice@x.test")).toHaveLength(1);
  });

  it("a new address chooses a password on accepting: a staff user of the inviting account only, signed in by that password", async () => {
    const { token } = await createInvitation(database, { accountId: b, email: "newbie@x.test", role: "marketing" });
    await expect(acceptInvitationAsNewUser(database, token, { password: "short" })).rejects.toThrow("at least 8");
    const made = await acceptInvitationAsNewUser(database, token, { password: "newbie-password", name: " Nia " });
    expect(made).toEqual({ accountId: b, role: "marketing", email: "newbie@x.test" });
    expect(await memberships("newbie@x.test")).toEqual([["B", "marketing"]]);
    expect(await verifyStaffPassword(database, "newbie@x.test", "newbie-password")).toMatchObject({ name: "Nia", mustChangePassword: false });
    await expect(acceptInvitationAsNewUser(database, token, { password: "another-password" })).rejects.toThrow("not valid");
    expect(await verifyStaffPassword(database, "newbie@x.test", "another-password")).toBeNull();
  });

  it("an existing user's invitation cannot be taken over by choosing a password; it stays open for them", async () => {
    const { token } = await createInvitation(database, { accountId: a, email: "alice2@a.test", role: "support" });
    await addStaffUser(database, { email: "alice2@a.test", role: "support", password: "password-a2", accountId: b });
    await expect(acceptInvitationAsNewUser(database, token, { password: "attacker-password" })).rejects.toThrow("sign in to accept");
    expect(await verifyStaffPassword(database, "alice2@a.test", "attacker-password")).toBeNull();
    expect(await findOpenInvitation(database, token)).toBeDefined();
    await acceptInvitation(database, token, "alice2@a.test");
    expect(await memberships("alice2@a.test")).toEqual([
      ["A", "support"],
      ["B", "support"],
    ]);
  });

  it("two accepts at once: exactly one wins", async () => {
    await addStaffUser(database, { email: "race@x.test", role: "support", password: "password-r1", accountId: b });
    const { token } = await createInvitation(database, { accountId: a, email: "race@x.test", role: "support" });
    const results = await Promise.allSettled([1, 2, 3].map(() => acceptInvitation(database, token, "race@x.test")));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("treats malformed tokens as invalid, never as a database error", async () => {
    for (const token of ["", "x", "a".repeat(43) + "=", "../../etc", "a".repeat(100_000), "ä".repeat(43), null, 42, { toString: () => "x" }]) {
      expect(await findOpenInvitation(database, token)).toBeUndefined();
      if (typeof token === "string") await expect(acceptInvitation(database, token, "carol@b.test")).rejects.toThrow("not valid");
    }
    await expect(createInvitation(database, { accountId: a, email: "not an address", role: "support" })).rejects.toThrow("not an email address");
    await expect(createInvitation(database, { accountId: a, email: "x@x.test", role: "owner" })).rejects.toThrow("Unknown role");
    await expect(createInvitation(database, { accountId: "00000000-0000-4000-8000-000000000000", email: "x@x.test", role: "support" })).rejects.toThrow("No account");
  });

  it("a single-sign-on staff user has no membership and no password that verifies", async () => {
    const user = await addSsoStaffUser(database, { email: "Sso@Corp.test", role: "marketing", name: "S" });
    expect(user).toMatchObject({ email: "sso@corp.test", role: "marketing", isOwner: false });
    expect(await memberships("sso@corp.test")).toEqual([]);
    for (const password of ["!", "", "password"]) expect(await verifyStaffPassword(database, "sso@corp.test", password)).toBeNull();
    // Again: the same user, nothing duplicated.
    expect((await addSsoStaffUser(database, { email: "sso@corp.test", role: "admin" })).id).toBe(user.id);
  });
});
