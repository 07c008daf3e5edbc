import { expect, test, type Page } from "@playwright/test";
import { simpleParser } from "mailparser";
import { createAccount } from "../lib/domain/accounts/accounts";
import { createInvitation } from "../lib/domain/staff/staff-invitations";
import { addStaffUser, setStaffOwner } from "../lib/domain/staff/staff-users";
import { openDatabase, type Database } from "../lib/storage/database";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * Adding members (ADR 0512): an account admin (not an owner) who adds an
 * existing user of another account makes an invitation, not a membership,
 * with the same answer as for an unknown address; the invitation email is
 * captured by the sandbox MX; accepting it as that user makes the
 * membership; a used or expired link is refused; an owner still adds at once.
 */

const PASSWORD = "invite-password-1";
const stamp = Date.now();
const ADMIN_A = `admin-a-${stamp}@example.com`;
const CAROL = `carol-${stamp}@b.test`;
const NEWBIE = `newbie-${stamp}@example.net`;

let alpha: string;
let bravo: string;

function withDb<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(loadState().databaseUrl, { max: 2 });
  return work(database).finally(() => database.close());
}

async function signInAs(page: Page, email: string, password = PASSWORD): Promise<void> {
  if (!page.url().includes("/login")) await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** The invitation link captured by the sandbox MX for `to` (waits for delivery). */
async function capturedInvitation(to: string): Promise<{ token: string; subject: string; from: string; accountId: string | null }> {
  return withDb(async (database) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await database.pool.query(
        "SELECT raw, account_id FROM sandbox_messages WHERE $1 = ANY(rcpt_to) AND subject LIKE 'Invitation to %' ORDER BY id DESC LIMIT 1",
        [to],
      );
      if (rows[0]) {
        const mail = await simpleParser(rows[0].raw as Buffer);
        const token = /\/invite\/([A-Za-z0-9_-]{43})/.exec(mail.text ?? "")?.[1];
        if (!token) throw new Error(`no invitation link in:\n${mail.text}`);
        return { token, subject: mail.subject ?? "", from: mail.from?.value[0]?.address ?? "", accountId: rows[0].account_id as string | null };
      }
      if (Date.now() > deadline) throw new Error(`no invitation captured for ${to}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  });
}

async function membershipRole(email: string, accountId: string): Promise<string | undefined> {
  return withDb(async (database) => {
    const { rows } = await database.pool.query(
      "SELECT m.role FROM staff_memberships m JOIN staff_users u ON u.id = m.user_id WHERE u.email = $1 AND m.account_id = $2",
      [email, accountId],
    );
    return rows[0]?.role as string | undefined;
  });
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  await withDb(async (database) => {
    alpha = (await createAccount(database, { name: `Alpha ${stamp}`, plan: "growth" })).accountId;
    bravo = (await createAccount(database, { name: `Bravo ${stamp}`, plan: "growth" })).accountId;
    await addStaffUser(database, { email: ADMIN_A, role: "admin", password: PASSWORD, accountId: alpha, name: "Ada Alpha" });
    await addStaffUser(database, { email: CAROL, role: "admin", password: PASSWORD, accountId: bravo, name: "Carol Bravo" });
    await database.pool.query("UPDATE staff_users SET last_login_at = '2026-01-02T03:04:05Z' WHERE email = $1", [CAROL]);
  });
});

test("an account admin adding another account's user invites her: no membership, the same answer as for an unknown address; she accepts", async ({ page }) => {
  test.setTimeout(120_000);
  const { accountId: demo } = loadState();
  await signInAs(page, ADMIN_A);
  await page.goto(`/a/${alpha}/settings#staff`);
  const card = page.getByTestId("staff");
  // An account admin has no password field: nothing is created at once.
  await expect(card.getByLabel("Initial password (owners)")).toHaveCount(0);

  const answers: string[] = [];
  for (const email of [CAROL, NEWBIE]) {
    await card.getByLabel("Email", { exact: true }).fill(email);
    await card.getByLabel("Role", { exact: true }).selectOption("support");
    await card.getByRole("button", { name: "Invite" }).click();
    await expect(page.getByTestId("staff-notice")).toHaveText(`Invitation sent to ${email}`);
    answers.push((await page.getByTestId("staff-notice").textContent())!.replace(email, "<email>"));
    await expect(card.locator(`[data-testid="invitation-row"][data-email="${email}"]`)).toContainText("support");
  }
  expect(answers[0]).toBe(answers[1]);
  // Not a member; nothing of her other account, her name or her last sign-in is shown.
  await expect(card.locator(`[data-testid="staff-row"][data-email="${CAROL}"]`)).toHaveCount(0);
  await page.reload();
  await expect(page.locator("body")).not.toContainText("Carol Bravo");
  await expect(page.locator("body")).not.toContainText("2026-01-02");
  await expect(page.locator("body")).not.toContainText(`Bravo ${stamp}`);
  expect(await membershipRole(CAROL, alpha)).toBeUndefined();
  await shot(page, "settings-invitations");

  // The invitation email went through Mailroom (the default account's path) into the sandbox MX.
  const invitation = await capturedInvitation(CAROL);
  expect(invitation.subject).toBe(`Invitation to Alpha ${stamp} on Mailroom`);
  expect(invitation.from).toBe("no-reply@example.com");
  expect(invitation.accountId).toBe(demo);
  // The owner sees it in the default account's sandbox.
  const ownerPage = await page.context().browser()!.newPage();
  await signIn(ownerPage, "admin");
  await ownerPage.goto(`/a/${demo}/sandbox`);
  await expect(ownerPage.getByText(`Invitation to Alpha ${stamp} on Mailroom`).first()).toBeVisible();
  await ownerPage.close();

  // Carol opens the link signed out, signs in, accepts: now a support member of Alpha.
  await page.context().clearCookies();
  await page.goto(`/invite/${invitation.token}`);
  await expect(page.getByTestId("invitation")).toContainText(`${CAROL} is invited to join Alpha ${stamp} as support`);
  await page.getByRole("link", { name: `Sign in as ${CAROL} to accept` }).click();
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
  await signInAs(page, CAROL);
  await expect(page).toHaveURL(new RegExp(`/invite/${invitation.token}$`));
  await page.getByRole("button", { name: `Join Alpha ${stamp}` }).click();
  await expect(page).toHaveURL(new RegExp(`/a/${alpha}(/events)?$`));
  expect(await membershipRole(CAROL, alpha)).toBe("support");
  await expect(page.getByTestId("account-switcher")).toBeVisible();

  // The same link again: refused, nothing changes.
  await page.goto(`/invite/${invitation.token}`);
  await expect(page.getByTestId("invitation")).toContainText("not valid");
  await expect(page.getByRole("button", { name: /Join/ })).toHaveCount(0);
});

test("a new address chooses a password from the invitation and lands in the account", async ({ page }) => {
  const invitation = await capturedInvitation(NEWBIE);
  await page.goto(`/invite/${invitation.token}`);
  await page.getByLabel("Choose a password").fill("newbie-password-1");
  await page.getByLabel("The password again").fill("newbie-password-1");
  await page.getByRole("button", { name: "Set the password and join" }).click();
  await expect(page).toHaveURL(new RegExp(`/a/${alpha}(/events)?$`));
  expect(await membershipRole(NEWBIE, alpha)).toBe("support");
  await expect(page.getByTestId("current-account")).toHaveText(`Alpha ${stamp}`);
  // Signed in by that password from now on; the link is spent.
  await page.context().clearCookies();
  await page.goto(`/invite/${invitation.token}`);
  await expect(page.getByTestId("invitation")).toContainText("not valid");
  await signInAs(page, NEWBIE, "newbie-password-1");
});

test("an expired link is refused, and a revoked one", async ({ page }) => {
  const expired = await withDb((database) =>
    createInvitation(database, { accountId: alpha, email: `late-${stamp}@example.org`, role: "admin", now: new Date(Date.now() - 8 * 86_400_000) }),
  );
  await page.goto(`/invite/${expired.token}`);
  await expect(page.getByTestId("invitation")).toContainText("not valid");
  await expect(page.getByLabel("Choose a password")).toHaveCount(0);

  // Revoked from the members card: its link stops working.
  const revoked = await withDb((database) => createInvitation(database, { accountId: alpha, email: `gone-${stamp}@example.org`, role: "support" }));
  await signInAs(page, ADMIN_A);
  await page.goto(`/a/${alpha}/settings#staff`);
  const expiredRow = page.locator(`[data-testid="invitation-row"][data-email="late-${stamp}@example.org"]`);
  await expect(expiredRow).toContainText("expired");
  const row = page.locator(`[data-testid="invitation-row"][data-email="gone-${stamp}@example.org"]`);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke the invitation" }).click();
  await expect(row).toHaveCount(0);
  await page.goto(`/invite/${revoked.token}`);
  await expect(page.getByTestId("invitation")).toContainText("not valid");
});

test("an owner still adds an existing user directly", async ({ page }) => {
  const dave = `dave-${stamp}@example.com`;
  await withDb(async (database) => {
    await addStaffUser(database, { email: dave, role: "support", password: PASSWORD, accountId: bravo });
    // The first-start admin is an owner already; make sure of it.
    await setStaffOwner(database, loadState().users.admin.email, true);
  });
  await signIn(page, "admin");
  await page.goto(`/a/${alpha}/settings#staff`);
  const card = page.getByTestId("staff");
  await card.getByLabel("Email", { exact: true }).fill(dave);
  await card.getByLabel("Role", { exact: true }).selectOption("marketing");
  await card.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByTestId("staff-notice")).toHaveText(`${dave} is now a member of Alpha ${stamp}`);
  await expect(card.locator(`[data-testid="staff-row"][data-email="${dave}"]`)).toBeVisible();
  expect(await membershipRole(dave, alpha)).toBe("marketing");
});
