import { expect, test, type Page } from "@playwright/test";
import { countEvents } from "./support/seed";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

async function shownNumbers(page: Page) {
  const n = async (id: string) => Number((await page.getByTestId(id).innerText()).replace(/[^\d]/g, ""));
  return {
    accepted: await n("kpi-sent-count"),
    delivered: await n("kpi-delivered-count"),
    opened: await n("kpi-opened-count"),
    clicked: await n("kpi-clicked-count"),
    bounced: await n("kpi-bounced-count"),
    complained: await n("kpi-complained-count"),
    unsubscribed: await n("kpi-unsubscribed-count"),
  };
}

async function apiNumbers(start: number, end: number) {
  const { url, apiKey } = loadState();
  const c = (Event: string) => countEvents(url, apiKey, { Event, StartDate: String(start), EndDate: String(end) });
  const [accepted, delivered, opened, clicked, failed, rejected, complained, unsubscribed] = await Promise.all(
    ["accepted", "delivered", "opened", "clicked", "failed", "rejected", "complained", "unsubscribed"].map(c),
  );
  return { accepted, delivered, opened, clicked, bounced: failed! + rejected!, complained, unsubscribed };
}

for (const source of ["stats", "events"] as const) {
  test(`overview numbers equal what the API reports for the same range (${source === "stats" ? "GET /stats" : "counting fallback"})`, async ({ page }) => {
    await signIn(page, "admin");
    await page.goto(`/?range=24h${source === "events" ? "&source=events" : ""}`);
    const range = page.getByTestId("overview-range");
    await expect(range).toBeVisible();
    if (source === "events") await expect(page.getByTestId("overview-source")).toBeVisible();
    const start = Number(await range.getAttribute("data-start"));
    const end = Number(await range.getAttribute("data-end"));
    const shown = await shownNumbers(page);
    expect(shown).toEqual(await apiNumbers(start, end));
    expect(shown.accepted).toBeGreaterThanOrEqual(16);
    expect(shown.opened).toBeGreaterThanOrEqual(1);
    expect(shown.bounced).toBeGreaterThanOrEqual(2);

    // GET /stats itself agrees with the counting.
    if (source === "stats") {
      const { url, apiKey } = loadState();
      const res = await fetch(`${url}/api/v1/stats?StartDate=${start}&EndDate=${end}&Interval=hour`, { headers: { Authorization: `Bearer ${apiKey}` } });
      const stats = (await res.json()) as { Totals: Record<string, number> };
      expect(stats.Totals.delivered).toBe(shown.delivered);
      await expect(page.getByTestId("chart-counts").locator(".chart-line")).toHaveCount(3);
      await shot(page, "overview");
    }
  });
}

test("the range picker puts the range in the URL; custom ranges work", async ({ page }) => {
  await signIn(page, "marketing");
  await page.getByRole("link", { name: "30 days" }).click();
  await expect(page).toHaveURL(/range=30d/);
  await expect(page.getByRole("link", { name: "30 days" })).toHaveAttribute("aria-current", "page");
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel("From (UTC)").fill(today);
  await page.getByLabel("To (UTC)").fill(today);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`range=custom&from=${today}&to=${today}`));
  await expect(page.getByTestId("overview-range")).toContainText("hourly");
  await expect(page.getByTestId("kpi-sent-count")).not.toHaveText("0");
});

test("overview at phone width and in dark mode", async ({ page }) => {
  await signIn(page, "admin");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/?range=24h");
  await expect(page.getByTestId("kpi-delivered-count")).toBeVisible();
  // Nothing overflows the viewport horizontally.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await shot(page, "overview-phone");
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.getByRole("button", { name: /theme/ }).click(); // system → light
  await page.getByRole("button", { name: /theme/ }).click(); // light → dark
  await expect(page.locator("html")).toHaveClass(/dark/);
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await shot(page, "overview-dark");
});
