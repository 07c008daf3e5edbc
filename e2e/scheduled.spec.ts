import { expect, test } from "@playwright/test";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * The Scheduled page (docs/contract.md §15): messages sent through the API
 * with a SendAt show with their time; Cancel goes through the server action
 * (the public API with the account's key) and the recipient gets its final
 * `failed` event.
 */

async function schedule(subject: string, sendAt: number): Promise<string> {
  const { url, apiKey } = loadState();
  const res = await fetch(`${url}/api/v1/email`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ From: { email: "hello@example.com" }, To: [{ email: "later@example.org" }], Subject: subject, ContentType: "Text", PlainContent: "hi", SendAt: sendAt }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { MessageID: string }).MessageID;
}

test("lists the account's scheduled messages with their time, and cancels one", async ({ page }) => {
  const { url, apiKey } = loadState();
  const sendAt = Math.floor(Date.now() / 1000) + 7200;
  const id = await schedule("Reminder for tomorrow", sendAt);
  await signIn(page, "support");
  await page.goto("/scheduled");
  await expect(page.getByRole("heading", { name: "Scheduled", exact: true })).toBeVisible();
  const row = page.locator(`[data-testid="scheduled-row"][data-message-id="${id}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("scheduled-time")).toHaveText(`${new Date(sendAt * 1000).toISOString().replace("T", " ").slice(0, 19)} UTC`);
  await expect(row).toContainText("Reminder for tomorrow");
  await shot(page, "scheduled");

  await row.getByTestId("cancel-scheduled").click();
  await page.getByRole("button", { name: "Cancel the message" }).click();
  await expect(row).toHaveCount(0);
  const status = await (await fetch(`${url}/api/v1/email/${id}`, { headers: { Authorization: `Bearer ${apiKey}` } })).json();
  expect(status).toMatchObject({ MessageID: id, Status: "cancelled" });
  const events = (await (await fetch(`${url}/api/v1/events?MessageID=${id}&Event=failed`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as {
    Events: { Reason: string }[];
  };
  expect(events.Events.map((e) => e.Reason)).toEqual(["cancelled before sending"]);
});
