import { expect, test, type Page } from "@playwright/test";
import { countEvents } from "./support/seed";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The sandbox inbox: viewing loads the open pixel, a link goes through the
 * tracked redirect, Unsubscribe is the real /t/u page, Report as spam an
 * ARF complaint through the inbound SMTP server. Each shows up in the
 * event log exactly as in production.
 */

async function send(to: string, subject: string): Promise<string> {
  const { url, apiKey } = loadState();
  const res = await fetch(`${url}/api/v1/email`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      From: { name: "Demo", email: "hello@example.com" },
      To: [{ name: "Sandy", email: to }],
      Subject: subject,
      ContentType: "HTML",
      HTMLContent: `<html><body><h1>${subject}</h1><p>Read <a href="https://example.net/article">the article</a>.</p><script>document.title="pwned"</script></body></html>`,
      PlainContent: "Read the article: https://example.net/article",
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { MessageID: string }).MessageID;
}

async function openCaptured(page: Page, messageId: string) {
  await page.goto(`/sandbox?q=${messageId}`);
  await expect
    .poll(async () => {
      await page.reload();
      return page.getByTestId("sandbox-row").count();
    }, { timeout: 30_000 })
    .toBe(1);
  await page.getByTestId("sandbox-row").getByRole("link").click();
  await expect(page.getByTestId("sandbox-subject")).toBeVisible();
}

const events = (messageId: string, Event: string) => countEvents(loadState().url, loadState().apiKey, { Event, MessageID: messageId });

test("viewing logs opened, a link logs clicked, Unsubscribe logs unsubscribed", async ({ page, context }) => {
  test.setTimeout(90_000);
  const stamp = Date.now();
  const messageId = await send(`sandy-${stamp}@example.org`, `Sandbox engagement ${stamp}`);
  await signIn(page, "support");
  await page.goto("/sandbox");
  await expect(page.getByRole("heading", { name: "Sandbox inbox" })).toBeVisible();
  await openCaptured(page, messageId);

  // Headers, HTML (scripts off), text part, raw source.
  const frame = page.frameLocator('[data-testid="sandbox-html"]');
  await expect(frame.locator("h1")).toHaveText(`Sandbox engagement ${stamp}`);
  expect(await page.getByTestId("sandbox-html").getAttribute("sandbox")).not.toContain("allow-scripts");
  await expect(page.getByRole("table", { name: "Headers" })).toContainText("List-Unsubscribe");
  await expect(page.getByTestId("sandbox-text")).toContainText("Read the article");
  await page.getByText(/^Raw source/).click();
  await expect(page.getByTestId("sandbox-raw")).toContainText(`Subject: Sandbox engagement ${stamp}`);
  await shot(page, "sandbox-message");

  // Viewing loaded the pixel.
  await expect.poll(() => events(messageId, "opened"), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);

  // The link goes through the tracked redirect (the target itself is on the internet, unreachable here).
  const link = page.getByTestId("message-link").first();
  await expect(link).toHaveAttribute("href", /^\/t\/c\//);
  const popup = context.waitForEvent("page");
  await link.click();
  await (await popup).close();
  await expect.poll(() => events(messageId, "clicked"), { timeout: 15_000 }).toBe(1);

  // Unsubscribe: the recipient's real confirmation page, then its button.
  const unsubscribe = context.waitForEvent("page");
  await page.getByTestId("unsubscribe").click();
  const confirm = await unsubscribe;
  await expect(confirm.getByRole("heading", { name: "Unsubscribe" })).toBeVisible();
  await confirm.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(confirm.getByRole("heading", { name: "You are unsubscribed" })).toBeVisible();
  await confirm.close();
  await expect.poll(() => events(messageId, "unsubscribed"), { timeout: 15_000 }).toBe(1);
});

test("Report as spam logs complained and suppresses the address", async ({ page }) => {
  test.setTimeout(90_000);
  const stamp = Date.now();
  const to = `spam-${stamp}@example.org`;
  const messageId = await send(to, `Sandbox complaint ${stamp}`);
  await signIn(page, "admin");
  await openCaptured(page, messageId);
  await page.getByTestId("report-spam").click();
  await expect(page.getByRole("dialog")).toContainText("ARF");
  await page.getByRole("dialog").getByRole("button", { name: "Report as spam" }).click();
  await expect(page.getByTestId("report-spam-result")).toContainText("Reported");
  await expect.poll(() => events(messageId, "complained"), { timeout: 30_000 }).toBe(1);

  await page.goto(`/settings?q=${encodeURIComponent(to)}#suppressions`);
  await expect(page.getByTestId("suppression-row").filter({ hasText: to })).toContainText("complaint");

  // The list: newest first, searchable.
  await page.goto(`/sandbox?q=${stamp}`);
  await expect(page.getByTestId("sandbox-row")).toHaveCount(1);
  await page.goto("/sandbox");
  await expect(page.getByTestId("sandbox-row").first()).toContainText(to);
  await shot(page, "sandbox");
});
