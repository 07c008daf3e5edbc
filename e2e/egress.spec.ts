import { expect, test } from "@playwright/test";
import { THEME_COOKIE } from "../components/shell/theme";
import { addEgressAddress } from "../lib/delivery/egress/admin";
import { openDatabase } from "../lib/storage/database";
import { addEgressUsageRows } from "../lib/storage/egress-rows";
import { seriousViolations } from "./support/axe";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * Instance → Egress (owners only, docs/egress.md): the owner sees an egress
 * address with its pool, EHLO name, warm-up day and its caps; a staff user
 * who is not an owner gets the forbidden page.
 */

const ADDRESS = "127.0.0.2";

async function withDatabase<T>(work: (db: ReturnType<typeof openDatabase>) => Promise<T>): Promise<T> {
  const db = openDatabase(loadState().databaseUrl, { max: 1 });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

test.afterAll(async () => {
  await withDatabase(async (db) => {
    await db.query("DELETE FROM egress_addresses WHERE address = $1", [ADDRESS]);
    await db.query("DELETE FROM egress_usage WHERE address = $1", [ADDRESS]);
  });
});

test("the owner sees an egress address with its warm-up day and its caps", async ({ page }) => {
  await withDatabase(async (db) => {
    await addEgressAddress(db, { address: ADDRESS, ehlo: "out2.e2e.example", pool: "e2e-pool" });
    // What the workers would have counted: 5 copies to gmail this hour.
    await addEgressUsageRows(db, [{ address: ADDRESS, provider: "gmail", hour: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000), copies: 5 }]);
  });
  await signIn(page, "admin");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Egress" }).click();
  await expect(page).toHaveURL(/\/instance\/egress$/);
  const row = page.getByTestId("egress-row").filter({ hasText: ADDRESS });
  await expect(row).toContainText("e2e-pool");
  await expect(row).toContainText("out2.e2e.example");
  await expect(row).toContainText("day 1");
  // The default schedule's day-1 caps: 8 an hour, 50 a day.
  await expect(row).toContainText("gmail");
  await expect(row).toContainText("5 / 8");
  await expect(row).toContainText("5 / 50");
  await expect(row.getByRole("meter", { name: `${ADDRESS} to gmail this hour` })).toHaveAttribute("aria-valuenow", "5");
  await expect(page.getByTestId("egress-pool-row").filter({ hasText: "e2e-pool" })).toContainText("1");
  await shot(page, "egress-page");
});

test("the page has no serious or critical axe violation, light or dark", async ({ page, context, baseURL }) => {
  await signIn(page, "admin");
  for (const theme of ["light", "dark"] as const) {
    await context.addCookies([{ name: THEME_COOKIE, value: theme, url: baseURL! }]);
    await page.goto("/instance/egress");
    await expect(page.locator("html")).toHaveClass(theme);
    await expect(page.getByTestId("egress-row").filter({ hasText: ADDRESS })).toBeVisible();
    expect(await seriousViolations(page), theme).toEqual([]);
    if (theme === "dark") await shot(page, "egress-page-dark");
  }
});

test("a staff user who is not an owner gets the forbidden page, and no Egress link", async ({ page }) => {
  await signIn(page, "support");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Egress" })).toHaveCount(0);
  const response = await page.goto("/instance/egress");
  expect(response?.status()).toBe(403);
});
