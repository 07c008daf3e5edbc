import { expect, test, type Page } from "@playwright/test";
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * Webhooks (admin) against a real receiver on 127.0.0.1 (the e2e app runs
 * with MAILROOM_ALLOW_PRIVATE_WEBHOOKS=true and a retry schedule of
 * seconds): register through the API client, test notification, a real
 * notification retried once, the attempt log, the signing key rotated and
 * the HMAC checked on the receiver's side, then delete.
 */

interface Received {
  body: { Signature: { Timestamp: number; Token: string; Signature: string }; EventData: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
}

function startReceiver() {
  const received: Received[] = [];
  let failNext = 0;
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      const entry = { body: JSON.parse(data || "{}"), headers: req.headers } as Received;
      received.push(entry);
      const isTest = String(req.headers["webhook-id"] ?? "").startsWith("msg_mailroom_test_");
      if (isTest) {
        res.writeHead(202, { "Content-Type": "text/plain" }).end("test-accepted-by-receiver");
      } else if (failNext > 0) {
        failNext--;
        res.writeHead(503, { "Content-Type": "text/plain" }).end("receiver busy, try later");
      } else {
        res.writeHead(200, { "Content-Type": "text/plain" }).end("ok-from-receiver");
      }
    });
  });
  return {
    received,
    failTimes: (n: number) => (failNext = n),
    listen: () => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const mailgun = (key: string, r: Received) => createHmac("sha256", key).update(`${r.body.Signature.Timestamp}${r.body.Signature.Token}`).digest("hex");

async function sendEmail(to: string): Promise<string> {
  const { url, apiKey } = loadState();
  const res = await fetch(`${url}/api/v1/email`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ From: { name: "Demo", email: "hello@example.com" }, To: [{ email: to }], Subject: "Webhook e2e", ContentType: "Text", PlainContent: "hi" }),
  });
  const json = (await res.json()) as { MessageID: string };
  expect(res.status).toBe(200);
  return json.MessageID;
}

async function revealKey(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Reveal" }).click();
  await expect(page.getByTestId("signing-key")).toHaveText(/^whsec_[A-Za-z0-9+/=]{40,}$/);
  return (await page.getByTestId("signing-key").textContent())!;
}

test("register, test, watch a retried notification, rotate the key, delete", async ({ page }) => {
  test.setTimeout(120_000);
  const receiver = startReceiver();
  const hookUrl = await receiver.listen();
  try {
    await signIn(page, "admin");
    await page.goto("/webhooks");
    await expect(page.getByRole("heading", { name: "Webhooks", exact: true })).toBeVisible();
    // The retry schedule is the configured one (e2e/global-setup.ts), not a sentence written for the default.
    await expect(page.getByText("Failed deliveries are retried (1 s up to 2 s; 8 attempts in all)")).toBeVisible();

    // URL validation in the form, with the HTTPS hint.
    await page.getByLabel("URL").fill("not a url");
    await expect(page.locator("#webhook-url-error")).toContainText("absolute http");
    await page.getByLabel("URL").fill(hookUrl);
    await expect(page.locator("#webhook-url-hint")).toContainText("https");

    await page.getByLabel("Event").selectOption("delivery");
    await page.getByRole("button", { name: "Register" }).click();
    await expect(page.getByText(/Webhook \d+ registered/)).toBeVisible();
    const row = page.getByTestId("webhook-row").filter({ hasText: hookUrl });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("webhook-last-code")).toHaveText("never called");
    await expect(row.getByTestId("webhook-try-counter")).toHaveText("0");
    await shot(page, "webhooks-new");

    // Test notification: the receiver's answer on the page; nothing recorded on the webhook.
    const key1 = await revealKey(page);
    await row.getByRole("button", { name: "Send test notification" }).click();
    await expect(row.getByTestId("test-status")).toHaveText("202");
    await expect(row.getByTestId("test-result")).toContainText("test-accepted-by-receiver");
    const test1 = receiver.received.at(-1)!;
    expect(test1.body.EventData.Event).toBe("delivered");
    expect(test1.body.Signature.Signature).toBe(mailgun(key1, test1));
    await page.reload();
    await expect(row.getByTestId("webhook-last-code")).toHaveText("never called");

    // A real notification: the receiver answers 503 once, then 200 on the retry.
    receiver.failTimes(1);
    const before = receiver.received.length;
    const messageId = await sendEmail(`hook-${Date.now()}@example.org`);
    await expect.poll(() => receiver.received.filter((r) => r.body.EventData.MessageID === messageId).length, { timeout: 30_000 }).toBe(2);
    const [first, retry] = receiver.received.slice(before).filter((r) => r.body.EventData.MessageID === messageId);
    expect(first!.headers["webhook-id"]).toBe(retry!.headers["webhook-id"]);
    expect(retry!.body.Signature.Signature).toBe(mailgun(key1, retry!));
    // The page follows by itself with auto-refresh on.
    await page.getByLabel("Auto-refresh (5 s)").check();
    await expect(row.getByTestId("webhook-try-counter")).toHaveText("2", { timeout: 20_000 });
    await expect(row.getByTestId("webhook-last-code")).toHaveText("200");
    await page.getByLabel("Auto-refresh (5 s)").uncheck();
    await row.getByText(/Last response body/).click();
    await expect(row.getByTestId("webhook-last-body")).toHaveText("ok-from-receiver");
    await row.getByRole("button", { name: /Delivery log/ }).click();
    await expect(row.getByTestId("attempt-row")).toHaveCount(2);
    await expect(row.getByTestId("attempt-log")).toContainText("503");
    await expect(row.getByTestId("attempt-log")).toContainText("receiver busy");
    await shot(page, "webhooks");

    // Rotate the signing key: the next notification is signed with the new key only.
    await page.getByTestId("rotate-key").click();
    await expect(page.getByRole("dialog")).toContainText("cannot be restored");
    await page.getByRole("dialog").getByRole("button", { name: "Rotate the key" }).click();
    await expect(page.getByText("The signing key was rotated")).toBeVisible();
    const key2 = (await page.getByTestId("signing-key").textContent())!;
    expect(key2).toMatch(/^whsec_/);
    expect(key2).not.toBe(key1);
    const next = await sendEmail(`hook2-${Date.now()}@example.org`);
    await expect.poll(() => receiver.received.some((r) => r.body.EventData.MessageID === next), { timeout: 30_000 }).toBe(true);
    const signed = receiver.received.find((r) => r.body.EventData.MessageID === next)!;
    expect(signed.body.Signature.Signature).toBe(mailgun(key2, signed));
    expect(signed.body.Signature.Signature).not.toBe(mailgun(key1, signed));
    expect(signed.body.Signature.Token).toMatch(/^[0-9a-f]{50}$/);

    // Delete: the confirmation says it is irreversible; the API no longer lists it.
    await row.getByTestId("delete-webhook").click();
    await expect(page.getByRole("dialog")).toContainText("irreversible");
    await shot(page, "webhooks-delete-confirm", { fullPage: false });
    await page.getByRole("dialog").getByRole("button", { name: "Delete permanently" }).click();
    await expect(row).toHaveCount(0);
    const { url, apiKey } = loadState();
    const list = (await (await fetch(`${url}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as { Webhooks: { WebhookURL: string }[] };
    expect(list.Webhooks.some((w) => w.WebhookURL === hookUrl)).toBe(false);
  } finally {
    await receiver.close();
  }
});
