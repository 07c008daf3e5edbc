import { expect, test } from "@playwright/test";
import { countEvents } from "./support/seed";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

test("the type filter narrows the table, counts what the API counts, and lives in the URL", async ({ page }) => {
  const { url, apiKey } = loadState();
  await signIn(page, "support");
  await page.goto("/events");
  await expect(page.getByTestId("events-total")).toHaveText(String(await countEvents(url, apiKey, {})));
  await shot(page, "events");

  await page.getByLabel("Event type").selectOption("delivered");
  await expect(page).toHaveURL(/\/events\?type=delivered$/);
  await expect(page.getByTestId("events-total")).toHaveText(String(await countEvents(url, apiKey, { Event: "delivered" })));
  const rows = page.getByTestId("event-row");
  await expect(rows.first()).toBeVisible();
  for (const type of await rows.locator("td:nth-child(2)").allInnerTexts()) expect(type.trim()).toBe("delivered");

  // Back restores the previous view.
  await page.goBack();
  await expect(page).toHaveURL(/\/events$/);
  await expect(page.getByLabel("Event type")).toHaveValue("");
});

test("paging with StartFrom and a page size; a shared link shows the same page", async ({ page, browser }) => {
  const { url, apiKey } = loadState();
  const total = await countEvents(url, apiKey, {});
  expect(total).toBeGreaterThan(20);
  await signIn(page, "admin");
  await page.goto("/events");
  await page.getByLabel("Per page").selectOption("10");
  await expect(page).toHaveURL(/size=10/);
  await expect(page.getByTestId("event-row")).toHaveCount(10);
  await expect(page.getByTestId("events-results")).toHaveAttribute("aria-busy", "false");
  const firstPage = await page.getByTestId("event-row").allInnerTexts();
  await page.getByRole("button", { name: "Older →" }).click();
  await expect(page).toHaveURL(/offset=10&size=10|size=10&offset=10|offset=10/);
  await expect(page.getByTestId("events-summary")).toContainText(`Showing 11–20 of ${total}`);
  await expect(page.getByTestId("events-results")).toHaveAttribute("aria-busy", "false");
  const secondPage = await page.getByTestId("event-row").allInnerTexts();
  expect(secondPage).not.toEqual(firstPage);

  // The same link in another browser context (another agent) shows the same page.
  const link = page.url();
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await signIn(otherPage, "support", { from: link });
  await expect(otherPage).toHaveURL(link);
  await expect(otherPage.getByLabel("Per page")).toHaveValue("10");
  expect(await otherPage.getByTestId("event-row").allInnerTexts()).toEqual(secondPage);
  await other.close();
});

test("MessageID and date filters, the detail drawer and its JSON", async ({ page }) => {
  const { messages } = loadState();
  await signIn(page, "admin");
  await page.goto("/events");
  await page.getByRole("textbox", { name: "MessageID" }).fill(messages.bounced);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`messageId=${messages.bounced}`));
  await expect(page.getByTestId("events-total")).toHaveText("2");
  await page.getByRole("button", { name: /Details of the failed event/ }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("bounce@example.org");
  await expect(dialog).toContainText("5.1.1");
  const json = JSON.parse(await dialog.getByTestId("event-json").innerText()) as { Event: string; Message: { Headers: { MessageId: string } } };
  expect(json.Event).toBe("failed");
  expect(json.Message.Headers.MessageId).toBe(messages.bounced);
  await shot(page, "events-drawer", { fullPage: false });
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  // A date range in the future holds nothing: the empty state says what to do.
  await page.goto("/events?from=2099-01-01T00:00&to=2099-01-02T00:00");
  await expect(page.getByText("No events match these filters")).toBeVisible();
  await expect(page.getByLabel("From (UTC)")).toHaveValue("2099-01-01T00:00");
  await page.getByRole("button", { name: "Clear the filters" }).click();
  await expect(page).toHaveURL(/\/events$/);
  await expect(page.getByTestId("event-row").first()).toBeVisible();
});

test("keyboard: filters, a row's details and back, with visible focus", async ({ page }) => {
  await signIn(page, "support");
  await page.goto("/events");
  // The type filter is reachable and usable from the keyboard.
  await page.getByLabel("Event type").focus();
  await page.keyboard.press("ArrowDown"); // first type after "All types"
  await expect(page).toHaveURL(/type=accepted/);
  const firstRow = page.getByRole("button", { name: /^Details of the accepted event/ }).first();
  await firstRow.focus();
  const outline = await firstRow.evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe("none");
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Close" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  // Focus returns to the row's button (native <dialog>).
  await expect(firstRow).toBeFocused();
});

test("auto-refresh shows new events without a reload", async ({ page }) => {
  const { url, apiKey } = loadState();
  await signIn(page, "support");
  await page.goto("/events?type=accepted");
  const before = Number(await page.getByTestId("events-total").innerText());
  await page.getByLabel("Auto-refresh (10 s)").check();
  const res = await fetch(`${url}/api/v1/email`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ From: { email: "hello@example.com" }, To: [{ email: "late@example.org" }], Subject: "Late arrival", ContentType: "Text", PlainContent: "Hi" }),
  });
  expect(res.status).toBe(200);
  await expect(page.getByTestId("events-total")).toHaveText(String(before + 1), { timeout: 15_000 });
  await expect(page.getByTestId("event-row").first()).toContainText("late@example.org");
});
