import { expect, test } from "@playwright/test";
import { createAccount } from "../lib/domain/accounts/accounts";
import { grantMembership } from "../lib/domain/staff/staff-users";
import { openDatabase } from "../lib/storage/database";
import { markReputationWarning, markSendingPaused } from "../lib/storage/reputation-rows";
import { actionId, callAction } from "./support/actions";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The reputation guardrails in the dashboard (docs/adr/0136): an account the
 * guardrails paused shows the banner with the reason to its marketing staff
 * (no Resume for them) and to an owner, who resumes it from the banner.
 */

const REASON = "the last day's complaint rate is 12.5% (70 complaints of 556 delivered), past the pause threshold of 0.08%";
const WARNING = "the last week's bounce rate is 3.1% (31 of 1000 recipients sent), past the warning threshold of 2.5%";
let paused: string;
let warned: string;

test.beforeAll(async () => {
  const { databaseUrl, users } = loadState();
  const database = openDatabase(databaseUrl, { max: 2 });
  try {
    paused = (await createAccount(database, { name: "Blasters", plan: "growth", domain: "blasters.test", verified: true })).accountId;
    await grantMembership(database, users.marketing.email, paused, "marketing");
    await markSendingPaused(database, paused, REASON);
    warned = (await createAccount(database, { name: "Borderline", plan: "growth", domain: "borderline.test", verified: true })).accountId;
    await grantMembership(database, users.marketing.email, warned, "marketing");
    await markReputationWarning(database, warned, WARNING);
  } finally {
    await database.close();
  }
});

test("marketing sees the paused banner and its reason, without Resume", async ({ page }) => {
  await signIn(page, "marketing");
  await page.goto(`/a/${paused}`);
  const banner = page.getByTestId("reputation-banner");
  await expect(banner).toHaveAttribute("data-status", "paused");
  await expect(banner).toContainText("Sending is paused for this account");
  await expect(banner).toContainText(REASON);
  await expect(banner.getByTestId("resume-sending")).toHaveCount(0);
  await expect(banner).toContainText("Ask an owner");
});

test("marketing sees the warning banner and its reason: sending goes on, nothing to resume", async ({ page }) => {
  await signIn(page, "marketing");
  await page.goto(`/a/${warned}`);
  const banner = page.getByTestId("reputation-banner");
  await expect(banner).toHaveAttribute("data-status", "warning");
  await expect(banner).toContainText("past its warning threshold");
  await expect(banner).toContainText(WARNING);
  await expect(banner.getByTestId("resume-sending")).toHaveCount(0);
});

test("the resume action called directly by a non-owner is refused, and the account stays paused", async ({ page }) => {
  const { databaseUrl } = loadState();
  await signIn(page, "marketing");
  const resume = actionId("resumeSendingAction", "app/(dashboard)/a/[account]/actions.ts");
  const res = await callAction(page.request, `/a/${paused}`, resume, [{ accountId: paused }]);
  expect(res.body).toContain("Only an owner may");
  const database = openDatabase(databaseUrl, { max: 1 });
  try {
    const { rows } = await database.pool.query("SELECT sending_paused_at FROM accounts WHERE id = $1", [paused]);
    expect(rows[0].sending_paused_at).toBeInstanceOf(Date);
  } finally {
    await database.close();
  }
});

test("an owner resumes sending from the banner; the resume is recorded with who", async ({ page }) => {
  const { databaseUrl, users } = loadState();
  await signIn(page, "admin");
  await page.goto(`/a/${paused}`);
  const banner = page.getByTestId("reputation-banner");
  await expect(banner).toContainText(REASON);
  await shot(page, "reputation-paused-banner", { fullPage: false });
  await banner.getByTestId("resume-sending").click();
  await expect(page.getByTestId("reputation-banner")).toHaveCount(0);
  const database = openDatabase(databaseUrl, { max: 1 });
  try {
    const { rows } = await database.pool.query("SELECT sending_paused_at, reputation_resumed_by FROM accounts WHERE id = $1", [paused]);
    expect(rows[0]).toEqual({ sending_paused_at: null, reputation_resumed_by: users.admin.email });
  } finally {
    await database.close();
  }
});
