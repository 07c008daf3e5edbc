import { expect, test, type Page } from "@playwright/test";
import { THEME_COOKIE } from "../components/shell/theme";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * A support agent's questions: which messages did this address get (the
 * explorer's Recipient filter, GET /events' extension, docs/contract.md §7.6),
 * and what did it say (the message page's "What was sent", docs/adr/0518);
 * and every area reached from a URL without the account in it (ADR 0510).
 */

test("a recipient address pasted in the explorer finds that recipient's messages, any case", async ({ page }) => {
  const { accountId, messages } = loadState();
  await signIn(page, "support");
  await page.goto(`/a/${accountId}/events`);
  await page.getByLabel("Recipient address").fill(" ANN@Example.org ");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/recipient=ANN%40Example\.org/);
  const rows = page.getByTestId("event-row");
  await expect(rows.first()).toBeVisible();
  // Every row is Ann's, and the welcome message is among them.
  for (const text of await rows.allInnerTexts()) expect(text.toLowerCase()).toContain("ann@example.org");
  await expect(rows.filter({ hasText: "Welcome to Mailroom" }).first()).toBeVisible();
  // Carl had the same message (Cc) and is not shown.
  await expect(page.getByTestId("events-table")).not.toContainText("carl@example.org");
  // The event's detail leads to the message.
  await rows.filter({ hasText: "Welcome to Mailroom" }).first().click();
  await expect(page.getByRole("link", { name: messages.engaged }).first()).toBeVisible();
  await page.keyboard.press("Escape");

  // A subject fragment narrows it further; one that matches nothing says so.
  await page.getByLabel("Subject contains").fill("welcome");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/subject=welcome/);
  await expect(rows.first()).toContainText("Welcome to Mailroom");
  await page.getByLabel("Subject contains").fill("no such subject at all");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(rows).toHaveCount(0);
});

test("the message page shows the HTML that was sent, its text, its links with their clicks and the raw message", async ({ page }) => {
  const { accountId, messages } = loadState();
  await signIn(page, "support");
  await page.goto(`/a/${accountId}/messages/${messages.engaged}`);
  const sent = page.getByTestId("sent-content");
  await expect(sent.getByRole("heading", { name: "What was sent" })).toBeVisible();
  // The HTML, rendered in the sandboxed frame (no scripts, links noopener).
  const frame = page.getByTestId("sent-html");
  await expect(frame).toHaveAttribute("sandbox", "allow-popups");
  await expect(page.frameLocator('[data-testid="sent-html"]').getByText("Hello Ann,")).toBeVisible();
  await expect(page.frameLocator('[data-testid="sent-html"]').getByRole("link", { name: "get started" })).toHaveAttribute("href", "https://example.net/start");
  await expect(page.getByTestId("sent-text")).toHaveText("Hello Ann");
  // The seeded click on the link is counted beside it.
  const link = page.getByTestId("sent-link").filter({ hasText: "get started" });
  await expect(link).toContainText("1 click");
  const headers = page.getByRole("table", { name: "Headers" });
  await expect(headers).toContainText("Welcome to Mailroom");
  await expect(headers).toContainText(`<${messages.engaged}@`);

  const href = await page.getByTestId("sent-raw").getAttribute("href");
  const raw = await page.request.get(href!);
  expect(raw.status()).toBe(200);
  expect(raw.headers()["content-disposition"]).toContain(`message-${messages.engaged}.eml`);
  const eml = await raw.text();
  expect(eml).toContain("Subject: Welcome to Mailroom");
  expect(eml).toMatch(/Content-Type: text\/html/);
});

test("marketing staff, who may not open messages, get neither the page nor the raw message", async ({ page }) => {
  const { accountId, messages } = loadState();
  await signIn(page, "marketing");
  const raw = await page.request.get(`/a/${accountId}/messages/${messages.engaged}/raw`, { maxRedirects: 0 });
  expect(raw.status()).not.toBe(200);
  expect(await raw.text()).not.toContain("Welcome to Mailroom");
});

test("every link of the navigation, opened without the account in the URL, lands on the current account's page", async ({ page }) => {
  const { accountId } = loadState();
  await signIn(page, "admin");
  await page.goto(`/a/${accountId}`);
  const hrefs = await page.getByRole("navigation", { name: "Main" }).getByRole("link").evaluateAll((links) => links.map((l) => l.getAttribute("href") ?? ""));
  const prefix = `/a/${accountId}`;
  const areas = hrefs.filter((h) => h === prefix || h.startsWith(`${prefix}/`));
  expect(areas.length).toBeGreaterThanOrEqual(9);
  for (const href of areas) {
    const accountless = href.slice(prefix.length) || "/";
    const res = await page.goto(accountless);
    expect(res?.status(), accountless).toBe(200);
    expect(new URL(page.url()).pathname, accountless).toBe(href);
  }
  // With a query string too (the explorer's filters survive the redirect).
  await page.goto("/events?recipient=ann%40example.org");
  expect(page.url()).toContain(`${prefix}/events?recipient=ann%40example.org`);
});

async function screenshots(page: Page, name: string, url: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(url);
    await page.waitForLoadState("networkidle");
    await shot(page, `${name}-${width}`);
  }
}

for (const theme of ["light", "dark"] as const) {
  test(`the explorer's recipient search and the message page at 1280 and 390 px, ${theme}`, async ({ page, context, baseURL }) => {
    const { accountId, messages } = loadState();
    await context.addCookies([{ name: THEME_COOKIE, value: theme, url: baseURL! }]);
    await signIn(page, "support");
    await screenshots(page, `events-recipient-${theme}`, `/a/${accountId}/events?recipient=ann%40example.org`);
    await expect(page.getByTestId("event-row").first()).toBeVisible();
    await screenshots(page, `message-sent-${theme}`, `/a/${accountId}/messages/${messages.engaged}`);
    await expect(page.getByTestId("sent-html")).toBeVisible();
    // Nothing wider than a phone's screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}
