import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/** Settings (admin): the same domain functions the CLI uses, through the dashboard. */

test("API keys: created with a label, shown once, usable, listed with prefix, revoked", async ({ page, request }) => {
  const { url } = loadState();
  await signIn(page, "admin");
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();

  await page.getByLabel("Label").fill("e2e billing");
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByTestId("new-api-key");
  await expect(shown).toHaveText(/^mr_[A-Za-z0-9_-]{43}$/);
  const key = (await shown.textContent())!;
  await expect(page.getByRole("button", { name: "Copy" }).first()).toBeVisible();

  // The key works against the API.
  const ok = await request.get(`${url}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${key}` } });
  expect(ok.status()).toBe(200);

  // Listed with its prefix, never the whole key.
  const row = page.getByTestId("api-key-row").filter({ hasText: "e2e billing" });
  await expect(row).toContainText(key.slice(0, 11));
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("new-api-key")).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText(key.slice(11));
  await page.reload();
  await expect(page.locator("body")).not.toContainText(key.slice(11));
  await shot(page, "settings");

  // Revoke with confirmation: the API refuses the key from then on.
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByRole("dialog")).toContainText("cannot be undone");
  await page.getByRole("dialog").getByRole("button", { name: "Revoke the key" }).click();
  await expect(row).toContainText("revoked");
  await expect
    .poll(async () => (await request.get(`${url}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${key}` } })).status(), { timeout: 10_000 })
    .toBe(401);
});

test("sender domains: added with the DNS records to publish, pending until verified", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/settings#domains");
  const name = `pending-${Date.now()}.example.net`;
  await page.getByLabel("Domain", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Add domain" }).click();
  const row = page.getByTestId("domain-row").filter({ hasText: name });
  await expect(row).toContainText("pending");
  await expect(row.getByRole("table")).toContainText(`_mailroom.${name}`);
  await expect(row.getByRole("table")).toContainText(`mailroom._domainkey.${name}`);
  await expect(row.getByRole("table")).toContainText("v=DKIM1; k=rsa; p=");
  await expect(row.getByRole("button", { name: "Verify" })).toBeVisible();
  // The demo domain of the first start is verified.
  await expect(page.getByTestId("domain-row").filter({ hasText: "example.com" }).first()).toContainText("verified");

  // A duplicate is refused with a message.
  await page.getByLabel("Domain", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Add domain" }).click();
  await expect(page.getByTestId("domains").getByRole("alert")).toContainText("already has the domain");
});

test("suppression list: add, search, remove", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/settings#suppressions");
  const email = `manual-${Date.now()}@example.org`;
  await page.getByLabel("Suppress an address").fill(email);
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByTestId("suppression-row").filter({ hasText: email })).toContainText("manual");

  await page.getByLabel("Search by address").fill(email.split("@")[0]!);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(/q=manual-/);
  await expect(page.getByTestId("suppression-row")).toHaveCount(1);

  await page.getByTestId("suppression-row").getByRole("button", { name: "Remove" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
  await expect(page.getByTestId("suppressions")).toContainText("No suppressed address contains");
});

test("staff users: add, change role, remove; the last admin cannot be removed", async ({ page }) => {
  const { users } = loadState();
  await signIn(page, "admin");
  await page.goto("/settings#staff");
  const email = `staff-${Date.now()}@example.com`;
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption("support");
  await page.getByLabel("Initial password").fill("staff-password-1");
  await page.getByRole("button", { name: "Add user" }).click();
  const row = page.locator(`[data-testid="staff-row"][data-email="${email}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByRole("combobox")).toHaveValue("support");

  await row.getByRole("combobox").selectOption("marketing");
  await expect(row.getByRole("combobox")).toHaveValue("marketing");
  await expect(row.getByRole("combobox")).toBeEnabled();
  await page.reload();
  await expect(row.getByRole("combobox")).toHaveValue("marketing");

  await row.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove the user" }).click();
  await expect(row).toHaveCount(0);

  // The only admin: removal and demotion are refused.
  const admin = page.locator(`[data-testid="staff-row"][data-email="${users.admin.email}"]`);
  await admin.getByRole("button", { name: "Remove" }).click();
  await expect(page.getByRole("dialog")).toContainText("last admin");
  await page.getByRole("dialog").getByRole("button", { name: "Remove the user" }).click();
  await expect(page.getByTestId("staff").getByRole("alert")).toContainText("last admin");
  await admin.getByRole("combobox").selectOption("support");
  await expect(page.getByTestId("staff").getByRole("alert")).toContainText("last admin");
  await page.reload();
  await expect(admin.getByRole("combobox")).toHaveValue("admin");
  await shot(page, "settings-staff");

  // At phone width nothing overflows the viewport (wide tables scroll inside their card).
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ["/settings", "/webhooks", "/compose", "/sandbox"]) {
    await page.goto(path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, path).toBeLessThanOrEqual(1);
  }
  await shot(page, "settings-phone");
});
