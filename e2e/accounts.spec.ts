import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { createAccount } from "../lib/domain/accounts/accounts";
import { addStaffUser, grantMembership } from "../lib/domain/staff/staff-users";
import { openDatabase } from "../lib/storage/database";
import { actionId, callAction } from "./support/actions";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The dashboard serves every account (ADR 0510): Acme is a second
 * account with its own mail; staff are members of one or both with a role
 * in each. The account is in the URL; another account's URL is a 404.
 */

const PASSWORD = "member-password-1";
const USERS = {
  both: "both@example.com", // support of Demo and of Acme
  acmeOnly: "acme-only@example.com", // support of Acme only
  dual: "dual@example.com", // admin of Acme, marketing of Demo
};

let acme: { accountId: string; apiKey: string };
let acmeMessage: string;
let acmeSubject: string;

async function signInAs(page: Page, email: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

const nav = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link");

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const { databaseUrl, url, accountId: demo } = loadState();
  const database = openDatabase(databaseUrl, { max: 2 });
  try {
    const made = await createAccount(database, { name: "Acme", plan: "growth", domain: "acme.test", verified: true });
    acme = { accountId: made.accountId, apiKey: made.apiKey };
    await addStaffUser(database, { email: USERS.both, role: "support", password: PASSWORD, accountId: demo });
    await grantMembership(database, USERS.both, acme.accountId, "support");
    await addStaffUser(database, { email: USERS.acmeOnly, role: "support", password: PASSWORD, accountId: acme.accountId });
    await addStaffUser(database, { email: USERS.dual, role: "admin", password: PASSWORD, accountId: acme.accountId });
    await grantMembership(database, USERS.dual, demo, "marketing");

    acmeSubject = `Acme order ${Date.now()}`;
    const res = await fetch(`${url}/api/v1/email`, {
      method: "POST",
      headers: { Authorization: `Bearer ${acme.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        From: { name: "Acme", email: "orders@acme.test" },
        To: [{ name: "Ada", email: "ada@example.org" }],
        Subject: acmeSubject,
        ContentType: "HTML",
        HTMLContent: "<p>Your order shipped.</p>",
      }),
    });
    expect(res.status).toBe(200);
    acmeMessage = ((await res.json()) as { MessageID: string }).MessageID;
    // Until the sandbox MX has captured it (with its account).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await database.pool.query("SELECT account_id FROM sandbox_messages WHERE mailroom_message_id = $1", [acmeMessage]);
      if (rows[0]) {
        expect(rows[0].account_id).toBe(acme.accountId);
        break;
      }
      if (Date.now() > deadline) throw new Error("Acme's message was not captured");
      await new Promise((r) => setTimeout(r, 300));
    }
  } finally {
    await database.close();
  }
});

test("a support member of two accounts switches accounts and finds Acme's MessageID from Demo", async ({ page }) => {
  const { accountId: demo } = loadState();
  await signInAs(page, USERS.both);
  // Lands on the default account (Demo); support's home is the event log.
  await expect(page).toHaveURL(new RegExp(`/a/${demo}/events$`));
  const switcher = page.getByTestId("account-switcher");
  await expect(switcher).toBeVisible();
  await expect(switcher.locator("option")).toHaveText(["Acme (support)", "Demo (support)"]);
  await shot(page, "account-switcher", { fullPage: false });

  // The header's search finds a message of any of the user's accounts and opens it there.
  await page.getByRole("searchbox", { name: "Find a message by MessageID" }).fill(acmeMessage);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/a/${acme.accountId}/messages/${acmeMessage}$`));
  await expect(page.getByTestId("recipient-timeline").first()).toContainText("ada@example.org");
  await expect(switcher).toHaveValue(acme.accountId);

  // Switching opens the same section of the other account.
  await switcher.selectOption(demo);
  await expect(page).toHaveURL(new RegExp(`/a/${demo}/events$`));
  await switcher.selectOption(acme.accountId);
  await expect(page).toHaveURL(new RegExp(`/a/${acme.accountId}/events$`));
  // Acme's event log holds Acme's message only.
  await expect(page.getByRole("cell", { name: "ada@example.org" }).first()).toBeVisible();
  await expect(page.getByRole("cell", { name: "ann@example.org" })).toHaveCount(0);
});

test("a URL of an account the user is not a member of is a 404, pages, routes and actions alike", async ({ page }) => {
  const { accountId: demo, messages } = loadState();
  await signInAs(page, USERS.acmeOnly);
  await expect(page).toHaveURL(new RegExp(`/a/${acme.accountId}/events$`));
  await expect(page.getByTestId("account-switcher")).toHaveCount(0);
  await expect(page.getByTestId("current-account")).toHaveText("Acme");
  for (const path of ["", "/events", `/messages/${messages.engaged}`, "/compose", "/sandbox", "/settings"]) {
    expect((await page.goto(`/a/${demo}${path}`))?.status(), path).toBe(404);
  }
  expect((await page.request.get(`/a/${demo}/events/export`)).status()).toBe(404);
  expect((await page.request.get(`/a/00000000-0000-4000-8000-000000000000/events`)).status()).toBe(404);
  // A server action called directly with the other account's id: refused, nothing handed out.
  const listEvents = actionId("listEventsAction", "app/(dashboard)/a/[account]/events/actions.ts");
  const refused = await callAction(page.request, `/a/${acme.accountId}/events`, listEvents, [demo, ""]);
  expect(refused.body).toContain('"ok":false,"error":"No such account"');
  expect(refused.body).not.toContain("TotalRecords");
  const own = await callAction(page.request, `/a/${acme.accountId}/events`, listEvents, [acme.accountId, ""]);
  expect(own.body).toContain("TotalRecords");
  // Demo's MessageID is not found from Acme (and its existence is not disclosed).
  await page.goto(`/messages/${messages.engaged}`);
  await expect(page).toHaveURL(new RegExp(`/a/${acme.accountId}/messages/${messages.engaged}$`));
  await expect(page.getByTestId("recipient-timeline")).toHaveCount(0);
});

test("roles hold per account: admin of Acme, marketing of Demo", async ({ page }) => {
  const { accountId: demo } = loadState();
  await signInAs(page, USERS.dual);
  await page.goto(`/a/${demo}`);
  await expect(nav(page)).toHaveText(["Overview", "Deliverability", "Events"]);
  expect((await page.goto(`/a/${demo}/settings`))?.status()).toBe(403);
  expect((await page.goto(`/a/${demo}/webhooks`))?.status()).toBe(403);
  expect((await page.goto(`/a/${acme.accountId}/settings`))?.status()).toBe(200);
  await expect(nav(page).filter({ hasText: "Settings" })).toHaveCount(1);
  // Acme's settings list Acme's domain and members only.
  await expect(page.getByTestId("domains")).toContainText("acme.test");
  await expect(page.getByTestId("domains")).not.toContainText("example.com");
  await expect(page.getByTestId("staff")).toContainText(USERS.acmeOnly);
  await expect(page.getByTestId("staff")).not.toContainText("marketing@example.com");
  // Compose offers Acme's From domains only.
  await page.goto(`/a/${acme.accountId}/compose`);
  await expect(page.locator("#from-domain option")).toHaveText(["acme.test"]);
});

test("today's URLs redirect to the same page of the default account, or of the account that holds the message", async ({ page }) => {
  const { accountId: demo } = loadState();
  await signInAs(page, USERS.both);
  await page.goto("/events?type=delivered");
  await expect(page).toHaveURL(new RegExp(`/a/${demo}/events\\?type=delivered$`));
  await page.goto("/sandbox");
  await expect(page).toHaveURL(new RegExp(`/a/${demo}/sandbox$`));
  await page.goto(`/messages/${acmeMessage}`);
  await expect(page).toHaveURL(new RegExp(`/a/${acme.accountId}/messages/${acmeMessage}$`));
  // Signed out, an old link survives the sign-in.
  await page.context().clearCookies();
  await page.goto("/compose");
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
});

test("the sandbox shows only the account's captured mail", async ({ page }) => {
  const { accountId: demo } = loadState();
  await signInAs(page, USERS.both);
  await page.goto(`/a/${acme.accountId}/sandbox`);
  await expect(page.getByTestId("sandbox-row")).toHaveCount(1);
  await expect(page.getByTestId("sandbox-row")).toContainText(acmeSubject);
  const href = await page.getByTestId("sandbox-row").getByRole("link").getAttribute("href");
  const captureId = /\/sandbox\/(\d+)$/.exec(href ?? "")?.[1];
  expect(captureId).toBeTruthy();

  await page.goto(`/a/${demo}/sandbox`);
  await expect(page.getByTestId("sandbox-row").first()).toBeVisible();
  await expect(page.getByTestId("sandbox-row").filter({ hasText: acmeSubject })).toHaveCount(0);
  // Acme's capture under Demo's URL: not found, page and raw source alike.
  expect((await page.goto(`/a/${demo}/sandbox/${captureId}`))?.status()).toBe(404);
  expect((await page.request.get(`/a/${demo}/sandbox/${captureId}/raw`)).status()).toBe(404);
  expect((await page.request.get(`/a/${acme.accountId}/sandbox/${captureId}/raw`)).status()).toBe(200);
});

test("owners see every account on the Accounts page; others do not have it", async ({ page }) => {
  await signIn(page, "admin");
  await expect(nav(page).filter({ hasText: "Accounts" })).toHaveCount(1);
  await page.goto("/accounts");
  const rows = page.getByTestId("account-row");
  await expect(rows.filter({ hasText: "Acme" })).toHaveCount(1);
  await expect(rows.filter({ hasText: "Demo" })).toContainText("default");
  await shot(page, "accounts-page");
  // A daily limit override, then back to the plan's.
  await page.getByLabel("Daily limit of Acme").fill("100");
  await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/accounts")),
    rows.filter({ hasText: "Acme" }).getByRole("button", { name: "Save" }).click(),
  ]);
  await page.reload();
  await expect(page.getByLabel("Daily limit of Acme")).toHaveValue("100");
  await page.getByLabel("Daily limit of Acme").fill("");
  await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/accounts")),
    rows.filter({ hasText: "Acme" }).getByRole("button", { name: "Save" }).click(),
  ]);
  await page.reload();
  await expect(page.getByLabel("Daily limit of Acme")).toHaveValue("2500");
  // The owner opens an account they are not a member of, as admin.
  await rows.filter({ hasText: "Acme" }).getByRole("link", { name: "Acme" }).click();
  await expect(page).toHaveURL(new RegExp(`/a/${acme.accountId}$`));
  await expect(nav(page).filter({ hasText: "Settings" })).toHaveCount(1);

  await page.context().clearCookies();
  await signInAs(page, USERS.dual);
  expect((await page.goto("/accounts"))?.status()).toBe(404);
});

/** Lines of the events CSV the Export button downloads (header dropped). */
async function exportCsv(page: Page): Promise<string[]> {
  await expect(page.getByTestId("event-row").first()).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const text = readFileSync((await (await download).path())!, "utf8");
  return text.trim().split(/\r?\n/).slice(1);
}

async function registerWebhook(apiKey: string, hook: string): Promise<number> {
  const { url } = loadState();
  const res = await fetch(`${url}/api/v1/webhooks`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ Event: "open", WebhookURL: hook }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { NewWebhookID: number }).NewWebhookID;
}

test("each account shows only its own webhooks, CSV rows and From domains; the owner switches between them", async ({ page }) => {
  test.setTimeout(120_000);
  const { url, apiKey, accountId: demo, messages } = loadState();
  const acmeHook = await registerWebhook(acme.apiKey, "https://hooks.acme.test/only-acme");
  const demoHook = await registerWebhook(apiKey, "https://hooks.demo.test/only-demo");
  try {
    // The admin of Acme: Acme's webhook, never Demo's.
    await signInAs(page, USERS.dual);
    await page.goto(`/a/${acme.accountId}/webhooks`);
    await expect(page.getByTestId("webhook-url")).toHaveText(["https://hooks.acme.test/only-acme"]);

    // A member of both: each account's CSV holds that account's rows only.
    await page.context().clearCookies();
    await signInAs(page, USERS.both);
    await page.goto(`/a/${acme.accountId}/events`);
    const acmeRows = await exportCsv(page);
    expect(acmeRows.length).toBeGreaterThanOrEqual(2); // accepted and delivered at least
    for (const row of acmeRows) expect(row).toContain(acmeMessage);
    await page.goto(`/a/${demo}/events`);
    const demoRows = await exportCsv(page);
    expect(demoRows.some((r) => r.includes(messages.engaged))).toBe(true);
    expect(demoRows.filter((r) => r.includes(acmeMessage))).toEqual([]);

    // The owner (member of Demo only) opens either account from the Accounts page.
    await page.context().clearCookies();
    await signIn(page, "admin");
    const rows = page.getByTestId("account-row");
    await page.goto("/accounts");
    await rows.filter({ hasText: "Acme" }).getByRole("link", { name: "Acme" }).click();
    await expect(page).toHaveURL(new RegExp(`/a/${acme.accountId}$`));
    await page.goto(`/a/${acme.accountId}/webhooks`);
    await expect(page.getByTestId("webhook-url")).toHaveText(["https://hooks.acme.test/only-acme"]);
    await page.goto(`/a/${acme.accountId}/compose`);
    await expect(page.locator("#from-domain option")).toHaveText(["acme.test"]);
    await page.goto("/accounts");
    await rows.filter({ hasText: "Demo" }).getByRole("link", { name: "Demo" }).click();
    await expect(page).toHaveURL(new RegExp(`/a/${demo}$`));
    await page.goto(`/a/${demo}/webhooks`);
    await expect(page.getByTestId("webhook-url").filter({ hasText: "hooks.demo.test/only-demo" })).toHaveCount(1);
    await expect(page.getByTestId("webhook-url").filter({ hasText: "hooks.acme.test" })).toHaveCount(0);
    await page.goto(`/a/${demo}/compose`);
    await expect(page.locator("#from-domain option").filter({ hasText: "example.com" })).toHaveCount(1);
    await expect(page.locator("#from-domain option").filter({ hasText: "acme.test" })).toHaveCount(0);
  } finally {
    for (const [key, id] of [[acme.apiKey, acmeHook], [apiKey, demoHook]] as const) {
      await fetch(`${url}/api/v1/webhooks/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${key}` } });
    }
  }
});
