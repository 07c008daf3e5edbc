import { expect, test } from "@playwright/test";
import { listHolds, placeHold, releaseHolds } from "../lib/delivery/destinations/holds";
import { openDatabase } from "../lib/storage/database";
import { upsertThrottle } from "../lib/storage/destination-throttle-rows";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * Instance → Queues (owners only, docs/adr/0204): the owner sees a
 * destination suspended automatically (its banner and its row) and resumes
 * it; a staff user who is not an owner gets the forbidden page.
 */

const KEY = "suspended-e2e.example";

async function withDatabase<T>(work: (db: ReturnType<typeof openDatabase>) => Promise<T>): Promise<T> {
  const db = openDatabase(loadState().databaseUrl, { max: 1 });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

test.afterAll(async () => {
  await withDatabase((db) => releaseHolds(db, KEY));
});

test("the owner sees a destination suspended automatically and resumes it", async ({ page }) => {
  await withDatabase((db) =>
    placeHold(db, { key: KEY, source: "automatic", placedBy: "automatic", reason: "550 5.7.1 listed on a block list", until: new Date(Date.now() + 3_600_000) }),
  );
  await signIn(page, "admin");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Queues" }).click();
  await expect(page).toHaveURL(/\/instance\/queues$/);
  await expect(page.getByTestId("automatic-suspension-banner")).toContainText(KEY);
  const row = page.getByTestId("queue-row").filter({ hasText: KEY });
  await expect(row).toContainText("suspended");
  await expect(row).toContainText("550 5.7.1 listed on a block list");
  await shot(page, "queues-page");

  await row.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByText(`Resumed ${KEY}`)).toBeVisible();
  await expect(page.getByTestId("queue-row").filter({ hasText: KEY })).toHaveCount(0);
  await expect(page.getByTestId("automatic-suspension-banner")).toHaveCount(0);
  expect((await withDatabase((db) => listHolds(db))).filter((h) => h.key === KEY)).toEqual([]);
});

test("the owner sees a destination the back-off throttled, with its rate and the reply that asked for it", async ({ page }) => {
  const throttle = { key: "throttled-e2e.example", domain: "throttled-e2e.example", perMinute: 6, connections: 1, reason: "421 4.7.28 unusual rate of mail" };
  await withDatabase((db) => upsertThrottle(db, { ...throttle, endsAt: new Date(Date.now() + 600_000) }));
  try {
    await signIn(page, "admin");
    await page.goto("/instance/queues");
    const row = page.getByTestId("queue-row").filter({ hasText: throttle.key });
    await expect(row).toContainText("throttled");
    await expect(row.getByTestId("queue-throttle")).toContainText("6/min, 1 connection, until");
    await expect(row.getByTestId("queue-throttle")).toContainText("421 4.7.28 unusual rate of mail");
    await shot(page, "queues-throttled");
  } finally {
    // Ended: no longer in force, so no longer listed.
    await withDatabase((db) => upsertThrottle(db, { ...throttle, endsAt: new Date(Date.now() - 1000) }));
  }
});

test("the owner suspends a destination from the form", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/instance/queues");
  await page.getByLabel("Destination").fill(KEY);
  await page.getByLabel("Minutes (optional)").fill("30");
  await page.getByLabel("Reason").fill("maintenance at the partner");
  await page.getByRole("button", { name: "Suspend", exact: true }).click();
  await expect(page.getByText(`Suspended ${KEY}`)).toBeVisible();
  await expect(page.getByTestId("queue-row").filter({ hasText: KEY })).toContainText("maintenance at the partner");
  const holds = (await withDatabase((db) => listHolds(db))).filter((h) => h.key === KEY);
  expect(holds).toMatchObject([{ source: "operator", accountId: null, reason: "maintenance at the partner" }]);
  expect(holds[0]!.until!.getTime() - Date.now()).toBeGreaterThan(25 * 60_000);
});

test("a staff user who is not an owner gets the forbidden page, and no Queues link", async ({ page }) => {
  await signIn(page, "support");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Queues" })).toHaveCount(0);
  const response = await page.goto("/instance/queues");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Your role may not open this page" })).toBeVisible();
});
