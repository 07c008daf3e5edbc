import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

test("a MessageID pasted in the header opens the message's timeline per recipient", async ({ page }) => {
  const { messages } = loadState();
  await signIn(page, "support");
  const search = page.getByRole("searchbox", { name: "Find a message by MessageID" });
  await search.fill(` ${messages.engaged} `);
  await search.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/messages/${messages.engaged}$`));
  await expect(page.getByTestId("message-id")).toHaveText(messages.engaged);
  await expect(page.getByRole("heading", { name: "Welcome to Mailroom" })).toBeVisible();
  // The summary's To; "What was sent" repeats it in the headers table.
  await expect(page.getByRole("definition").filter({ hasText: "Ann Example <ann@example.org>" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Ann Example <ann@example.org>" })).toBeVisible();

  const ann = page.getByTestId("recipient-timeline").filter({ hasText: "ann@example.org" });
  await expect(ann.locator("ol > li")).toHaveCount(4);
  const steps = await ann.locator("ol > li span.rounded-full:not([aria-hidden])").allInnerTexts();
  expect(steps).toEqual(["accepted", "delivered", "opened", "clicked"]);
  // The delivered copy's TLS (docs/contract.md §7.7): the sandbox MX offers no STARTTLS, so it says so.
  await expect(ann.locator("ol > li").nth(1).getByTestId("tls-verdict")).toHaveText(/^No TLS: sent in clear/);
  // Engagement events carry the client's IP and a location line.
  await expect(ann.locator("ol > li").nth(2)).toContainText("IP ");
  await expect(ann.locator("ol > li").nth(3)).toContainText("Link: https://example.net/start");

  const carl = page.getByTestId("recipient-timeline").filter({ hasText: "carl@example.org" });
  await expect(carl).toContainText("CC");
  await expect(carl.locator("ol > li")).toHaveCount(2);
  await shot(page, "message");
});

test("a bounced message shows its diagnostic; the Message-ID header form is understood", async ({ page }) => {
  const { messages } = loadState();
  await signIn(page, "admin");
  const search = page.getByRole("searchbox", { name: "Find a message by MessageID" });
  await search.fill(`<${messages.bounced}@example.com>`);
  await search.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/messages/${messages.bounced}$`));
  const timeline = page.getByTestId("recipient-timeline");
  await expect(timeline).toContainText("bounce@example.org");
  await expect(timeline).toContainText("Diagnostic:");
  await expect(timeline).toContainText("5.1.1");
});

test("an unknown MessageID says so and what to check", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/messages/00000000-0000-4000-8000-000000000000");
  await expect(page.getByText("No events for this MessageID")).toBeVisible();
});

test("events and message pages fit a phone screen", async ({ page }) => {
  const { messages } = loadState();
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "support");
  for (const [path, name] of [["/events", "events-phone"], [`/messages/${messages.engaged}`, "message-phone"]] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, path).toBeLessThanOrEqual(1);
    await shot(page, name);
  }
});
