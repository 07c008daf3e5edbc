import { randomUUID } from "node:crypto";
import { expect, test, type Locator, type Page } from "@playwright/test";
import pg from "pg";
import { seriousViolations } from "./support/axe";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The overview's recharts charts and breakdown table (docs/adr/0517): the tooltip shows the
 * hovered bucket's numbers, a legend button hides a series, a click on a bucket opens the
 * event explorer on it, the brush sets the page's range, and the breakdown shows a tag's
 * rates; axe-clean at 1280 and 390 px, light and dark.
 */

const TAG = "e2e-digest";

/** The chart, drawn (recharts draws after hydration, over the server's placeholder). */
async function drawn(page: Page, testId: string): Promise<Locator> {
  const chart = page.getByTestId(testId);
  await expect(chart.locator("[data-drawn=true]")).toBeVisible();
  await expect(chart.locator(".chart-line")).toHaveCount(3);
  return chart;
}

/** The dot of the newest bucket of the chart's first line. */
async function lastDot(chart: Locator) {
  const dot = chart.locator(".recharts-line-dots").first().locator("circle").last();
  const box = await dot.boundingBox();
  expect(box).toBeTruthy();
  return { x: box!.x + box!.width / 2, y: box!.y + box!.height / 2 };
}

test.beforeAll(async () => {
  // A tagged message two hours ago (older than the roll-up's horizon, so the hourly summaries
  // take it in): 4 recipients, 3 delivered, 1 failed, 2 opens.
  const { databaseUrl, accountId } = loadState();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Once per run: a failed test starts a new worker, which runs this again.
    const seen = await client.query("SELECT 1 FROM messages WHERE account_id = $1 AND $2 = ANY(tags)", [accountId, TAG]);
    if (seen.rowCount) return;
    const at = Math.floor(Date.now() / 1000) - 2 * 3600;
    // Headers as the API stores them: GET /events (and the dashboard's parse of it) serves them as they are.
    const id = randomUUID();
    const headers = { MessageId: id, From: [["", "hello@example.com"]], ReplyTo: [], To: [["", "a@gmail.com"]], Cc: [], Bcc: [], Subject: "Digest" };
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, tags, created_at)
       VALUES ($4, $1, 'hello@example.com', 'example.com', 'Digest', $5, '{}', $2, to_timestamp($3 - 60)) RETURNING id`,
      [accountId, [TAG], at, id, JSON.stringify(headers)],
    );
    const events: [string, string][] = [
      ["accepted", "a@gmail.com"],
      ["accepted", "b@gmail.com"],
      ["accepted", "c@yahoo.com"],
      ["accepted", "d@outlook.com"],
      ["delivered", "a@gmail.com"],
      ["delivered", "b@gmail.com"],
      ["delivered", "d@outlook.com"],
      ["failed", "c@yahoo.com"],
      ["opened", "a@gmail.com"],
      ["opened", "d@outlook.com"],
    ];
    await client.query(
      `INSERT INTO events (account_id, message_id, type, logged_at, recipient)
       SELECT $1, $2, t, $3, r FROM unnest($4::text[], $5::text[]) AS x(t, r)`,
      [accountId, rows[0]!.id, at, events.map((e) => e[0]), events.map((e) => e[1])],
    );
  } finally {
    await client.end();
  }
});

test("the tooltip shows the hovered bucket's numbers, the same as the table's", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/?range=24h");
  const chart = await drawn(page, "chart-counts");
  const { x, y } = await lastDot(chart);
  await page.mouse.move(x, y);
  const tip = chart.getByTestId("chart-tooltip");
  await expect(tip).toBeVisible();
  // The table's last row is the same bucket: its name and its three counts.
  const cells = await chart.locator("tbody tr").last().locator("th, td").allTextContents();
  await expect(tip).toContainText(`${cells[0]} UTC`);
  await expect(tip.locator("[data-series=delivered]")).toContainText(`Delivered${cells[1]}`);
  await expect(tip.locator("[data-series=opened]")).toContainText(`Opened${cells[2]}`);
  await expect(tip.locator("[data-series=bounced]")).toContainText(`Bounced${cells[3]}`);
  // With each count's rate.
  await expect(tip.locator("[data-series=delivered]")).toContainText("%");
});

test("a legend click hides a series and a second shows it again", async ({ page }) => {
  await signIn(page, "marketing");
  await page.goto("/?range=24h");
  const chart = await drawn(page, "chart-rates");
  const legend = chart.getByRole("button", { name: "Open rate" });
  await expect(legend).toHaveAttribute("aria-pressed", "true");
  await legend.click();
  await expect(legend).toHaveAttribute("aria-pressed", "false");
  await expect(chart.locator(".chart-line")).toHaveCount(2);
  await legend.click();
  await expect(chart.locator(".chart-line")).toHaveCount(3);
});

test("a click on a bucket opens the event explorer on that bucket's time", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "admin");
  await page.goto("/?range=24h");
  const chart = await drawn(page, "chart-counts");
  const hour = new Date().toISOString().slice(0, 13);
  const { x, y } = await lastDot(chart);
  await page.mouse.move(x, y);
  await expect(chart.getByTestId("chart-tooltip")).toBeVisible();
  await page.mouse.click(x, y);
  await expect(page).toHaveURL(new RegExp(`/a/${accountId}/events\\?from=${hour}%3A00&to=${hour}%3A59$`));
  await expect(page.getByLabel(/From/).first()).toHaveValue(`${hour}:00`);
});

test("releasing the brush makes its buckets the page's range", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/?range=7d");
  const chart = await drawn(page, "chart-counts");
  const left = chart.locator(".recharts-brush-traveller").first();
  const box = (await left.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 150, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await expect(page).toHaveURL(/range=custom&from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}$/);
  const url = new URL(page.url());
  await expect(page.getByTestId("overview-range")).toContainText(`${url.searchParams.get("from")} 00:00:00`);
  expect(url.searchParams.get("to")).toBe(new Date().toISOString().slice(0, 10));
});

test("the breakdown shows a tag's sent count and rates, sorts by a column, and switches to providers", async ({ page }) => {
  await signIn(page, "marketing");
  // The summaries are brought forward in the background after a read: reload until they have the tag.
  const row = page.locator(`[data-testid=breakdown-table] tr[data-value="${TAG}"]`);
  await expect(async () => {
    await page.goto("/?range=24h&by=tag");
    await expect(row).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(row.locator("td").nth(1)).toContainText("4");
  await expect(row.locator("[data-rate=delivered]")).toContainText("75.0%");
  await expect(row.locator("[data-rate=bounced]")).toContainText("25.0%");
  await expect(row.locator("[data-rate=opened]")).toContainText("66.7%");
  const bounce = page.getByTestId("breakdown-table").getByRole("columnheader", { name: /Bounce/ });
  await bounce.getByRole("button").click();
  await expect(bounce).toHaveAttribute("aria-sort", "descending");
  await expect(page.getByTestId("breakdown-table").locator("tbody tr").first()).toHaveAttribute("data-value", TAG);
  await page.getByTestId("breakdown").getByRole("link", { name: "Provider" }).click();
  await expect(page).toHaveURL(/by=provider/);
  await expect(page.locator('[data-testid=breakdown-table] tr[data-value="Yahoo"] [data-rate=bounced]')).toContainText("100.0%");
});

test("the overview with its charts drawn is axe-clean at 1280 and 390 px, light and dark", async ({ page }) => {
  await signIn(page, "admin");
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
      await page.goto("/?range=24h");
      await page.evaluate((t) => document.documentElement.classList.toggle("dark", t === "dark"), theme);
      await drawn(page, "chart-counts");
      await expect(page.getByTestId("breakdown")).toBeVisible();
      expect(await seriousViolations(page), `${theme} ${width}px`).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${theme} ${width}px overflow`).toBeLessThanOrEqual(1);
      await shot(page, `overview-charts-${width}-${theme}`);
    }
  }
});
