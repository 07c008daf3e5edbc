import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AREA_ROLES, type Area } from "../../lib/auth/roles";
import { decideAccess, type AccountAccess, type DashboardUser } from "../../lib/dashboard/decide";
import { composeDomains } from "../../lib/dashboard/compose";
import { listSandbox, readSandbox, reportSandboxSpam } from "../../lib/dashboard/sandbox";
import * as invitations from "../../lib/dashboard/invitations";
import * as settings from "../../lib/dashboard/settings";
import * as webhooks from "../../lib/dashboard/webhooks";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { accountsVisibleTo, addStaffUser, grantMembership, revokeMembership } from "../../lib/domain/staff/staff-users";
import type { AppContext } from "../../lib/context";
import { setServerContext } from "../../lib/runtime";
import { createApiKeyAuthCache } from "../../lib/domain/accounts/api-keys";
import { createDashboardApiCache } from "../../lib/api-client/dashboard-cache";
import { openDatabase, type Database } from "../../lib/storage/database";
import { createTestDatabase } from "../support/test-database";

/**
 * lib/dashboard's one decision (ADR 0510) over real memberships: a
 * non-member is refused (404) in every area, a member whose role lacks the
 * area is refused (403), an owner opens every account as admin; and every
 * area function refuses an access made for a role without its area.
 */
describe("lib/dashboard access", () => {
  let database: Database;
  let acme: string;
  let demo: string;
  const AREAS = Object.keys(AREA_ROLES) as Area[];

  async function userOf(email: string): Promise<DashboardUser> {
    const visible = await accountsVisibleTo(database, email);
    return { email, name: email, isOwner: visible!.user.isOwner, mustChangePassword: false, accounts: visible!.accounts };
  }

  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), { max: 2 });
    demo = (await createAccount(database, { name: "Demo", plan: "unlimited", isDefault: true })).accountId;
    acme = (await createAccount(database, { name: "Acme", plan: "growth", domain: "acme.test", verified: true })).accountId;
    await addStaffUser(database, { email: "owner@x.test", role: "admin", password: "password-1", owner: true, accountId: demo });
    await addStaffUser(database, { email: "dual@x.test", role: "admin", password: "password-1", accountId: acme });
    await grantMembership(database, "dual@x.test", demo, "marketing");
    await addStaffUser(database, { email: "support@x.test", role: "support", password: "password-1", accountId: acme });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("refuses a non-member with 404 in every area, and an unknown or malformed account alike", async () => {
    const support = await userOf("support@x.test");
    expect(support.accounts.map((a) => a.accountName)).toEqual(["Acme"]);
    for (const area of AREAS) {
      expect(decideAccess(support, demo, area), area).toMatchObject({ ok: false, status: 404 });
      expect(decideAccess(support, "00000000-0000-4000-8000-000000000000", area)).toMatchObject({ ok: false, status: 404 });
      expect(decideAccess(support, "not-a-uuid", area)).toMatchObject({ ok: false, status: 404 });
      expect(decideAccess(support, { toString: () => acme }, area)).toMatchObject({ ok: false, status: 404 });
      expect(decideAccess(undefined, acme, area)).toMatchObject({ ok: false, status: 401 });
    }
  });

  it("applies the role of the URL's account: admin of Acme, marketing of Demo", async () => {
    const dual = await userOf("dual@x.test");
    for (const area of AREAS) {
      expect(decideAccess(dual, acme, area), `acme ${area}`).toMatchObject({ ok: true, access: { role: "admin", base: `/a/${acme}` } });
      const inDemo = decideAccess(dual, demo, area);
      if (AREA_ROLES[area].includes("marketing")) expect(inDemo, `demo ${area}`).toMatchObject({ ok: true, access: { role: "marketing" } });
      else expect(inDemo, `demo ${area}`).toMatchObject({ ok: false, status: 403 });
    }
    // A revoked membership applies at once (the next request re-reads it).
    await revokeMembership(database, "dual@x.test", demo);
    expect(decideAccess(await userOf("dual@x.test"), demo, "events")).toMatchObject({ ok: false, status: 404 });
    await grantMembership(database, "dual@x.test", demo, "marketing");
  });

  it("lets an owner open every account, as admin where not a member", async () => {
    const owner = await userOf("owner@x.test");
    expect(owner.accounts.map((a) => [a.accountName, a.role, a.member])).toEqual([
      ["Acme", "admin", false],
      ["Demo", "admin", true],
    ]);
    for (const area of AREAS) expect(decideAccess(owner, acme, area), area).toMatchObject({ ok: true });
  });

  it("keeps an account's last admin", async () => {
    await expect(revokeMembership(database, "dual@x.test", acme)).rejects.toThrow("dual@x.test is the last admin of Acme");
    await expect(grantMembership(database, "dual@x.test", acme, "support")).rejects.toThrow("is the last admin of Acme");
  });

  it("removing a non-member answers alike for another account's user and an unknown address (no oracle)", async () => {
    setServerContext({ database, apiKeyAuth: createApiKeyAuthCache(), dashboardApi: createDashboardApiCache() } as unknown as AppContext);
    const check = decideAccess(await userOf("dual@x.test"), acme, "settings");
    const admin = (check as { access: AccountAccess }).access;
    const answers: string[] = [];
    for (const email of ["owner@x.test", "nobody-at-all@x.test"]) {
      const err = await settings.removeMember(admin, email).then(() => undefined, (e: unknown) => e as Error);
      answers.push(String(err?.message).replace(email, "<email>"));
    }
    expect(answers).toEqual(["<email> is not a member of this account", "<email> is not a member of this account"]);
  });

  it("every area function refuses an access made for a role without its area", async () => {
    const dual = await userOf("dual@x.test");
    const check = decideAccess(dual, demo, "events");
    expect(check.ok).toBe(true);
    const marketing = (check as { access: AccountAccess }).access;
    const calls: [string, () => Promise<unknown>][] = [
      ["loadSettings", () => settings.loadSettings(marketing, {})],
      ["createKey", () => settings.createKey(marketing, "x")],
      ["revokeKey", () => settings.revokeKey(marketing, "00000000-0000-4000-8000-000000000000")],
      ["addDomain", () => settings.addDomain(marketing, "x.test")],
      ["verifyDomain", () => settings.verifyDomain(marketing, "00000000-0000-4000-8000-000000000000")],
      ["suppress", () => settings.suppress(marketing, "a@x.test")],
      ["unsuppress", () => settings.unsuppress(marketing, "a@x.test")],
      ["addOrInviteMember", () => invitations.addOrInviteMember(marketing, { email: "n@x.test", role: "admin", password: "password-1" })],
      ["pendingInvitations", () => invitations.pendingInvitations(marketing)],
      ["withdrawInvitation", () => invitations.withdrawInvitation(marketing, "00000000-0000-4000-8000-000000000000")],
      ["changeMemberRole", () => settings.changeMemberRole(marketing, "support@x.test", "admin")],
      ["removeMember", () => settings.removeMember(marketing, "support@x.test")],
      ["listAttempts", () => webhooks.listAttempts(marketing, 1)],
      ["sendTest", () => webhooks.sendTest(marketing, 1)],
      ["revealSigningKey", () => webhooks.revealSigningKey(marketing)],
      ["rotateKey", () => webhooks.rotateKey(marketing)],
      ["listSandbox", () => listSandbox(marketing, { limit: 1, offset: 0 })],
      ["readSandbox", () => readSandbox(marketing, 1)],
      ["reportSandboxSpam", () => reportSandboxSpam(marketing, 1)],
      ["composeDomains", () => composeDomains(marketing)],
    ];
    for (const [name, call] of calls) await expect(Promise.resolve().then(call), name).rejects.toThrow();
    // Nothing happened: no member was added.
    expect((await accountsVisibleTo(database, "n@x.test"))).toBeUndefined();
    expect((await database.pool.query("SELECT count(*)::int AS n FROM staff_invitations")).rows[0].n).toBe(0);
  });
});
