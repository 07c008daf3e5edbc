import { expect, test } from "@playwright/test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { shot, signIn } from "./support/session";
import { loadState } from "./support/state";

/**
 * Webhook deliveries in the dashboard (docs/contract.md §16) against a real
 * receiver on 127.0.0.1: a 410 disables the webhook (banner, Re-enable), the
 * failed delivery is listed with its attempts under the "failed" filter,
 * Retry sends it again with the same webhook-id, and the bulk replay finds
 * nothing left to send.
 */

function startReceiver() {
  const received: { webhookId: string; messageId: string }[] = [];
  let status = 410;
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(data || "{}") as { EventData?: { MessageID?: string } };
      received.push({ webhookId: String(req.headers["webhook-id"] ?? ""), messageId: body.EventData?.MessageID ?? "" });
      res.writeHead(status, { "Content-Type": "text/plain" }).end(status === 410 ? "gone-from-receiver" : "ok-from-receiver");
    });
  });
  return {
    received,
    answer: (s: number) => (status = s),
    listen: () => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/gone`))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const { url, apiKey } = loadState();
  const res = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

test("a 410 disables the webhook; the failed delivery is listed with its attempts, retried, and the webhook re-enabled", async ({ page }) => {
  test.setTimeout(120_000);
  const receiver = startReceiver();
  const hookUrl = await receiver.listen();
  let webhookId = 0;
  try {
    webhookId = (await api<{ NewWebhookID: number }>("POST", "/webhooks", { Event: "delivery", WebhookURL: hookUrl })).NewWebhookID;
    const sent = await api<{ MessageID: string }>("POST", "/email", {
      From: { name: "Demo", email: "hello@example.com" },
      To: [{ email: `gone-${Date.now()}@example.org` }],
      Subject: "Webhook deliveries e2e",
      ContentType: "Text",
      PlainContent: "hi",
    });
    await expect.poll(() => receiver.received.filter((r) => r.messageId === sent.MessageID).length, { timeout: 30_000 }).toBe(1);
    const originalId = receiver.received.find((r) => r.messageId === sent.MessageID)!.webhookId;

    await signIn(page, "admin");
    await page.goto("/webhooks");
    const row = page.getByTestId("webhook-row").filter({ hasText: hookUrl });
    await expect(page.getByTestId("disabled-webhooks-banner")).toContainText(`#${webhookId}`, { timeout: 20_000 });
    await expect(row.getByTestId("webhook-disabled")).toContainText("410 Gone");

    // The failed delivery, its attempts; retry waits for re-enabling.
    await row.getByRole("button", { name: /Deliveries/ }).click();
    await row.getByLabel("Delivery status").selectOption("failed");
    const delivery = row.getByTestId("delivery-row");
    await expect(delivery).toHaveCount(1);
    await expect(delivery).toContainText("failed");
    await expect(row.getByTestId("retry-delivery")).toBeDisabled();
    await delivery.getByRole("button", { name: "Attempts" }).click();
    await expect(row.getByTestId("delivery-attempts")).toContainText("410");
    await expect(row.getByTestId("delivery-attempts")).toContainText("gone-from-receiver");
    await shot(page, "webhook-deliveries-disabled");

    // Re-enable, then retry: the same webhook-id reaches the receiver, now answering 200.
    receiver.answer(200);
    await row.getByTestId("enable-webhook").click();
    await expect(page.getByText(`Webhook #${webhookId} is enabled again`)).toBeVisible();
    await expect(row.getByTestId("webhook-disabled")).toHaveCount(0);
    await expect(page.getByTestId("disabled-webhooks-banner")).toHaveCount(0);
    // The list stays open across the page's refresh (client state); open it again if it was not.
    const toggle = row.getByRole("button", { name: /Deliveries/ });
    if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
    await row.getByLabel("Delivery status").selectOption("failed");
    await expect(row.getByTestId("retry-delivery")).toBeEnabled();
    await row.getByTestId("retry-delivery").click();
    await expect.poll(() => receiver.received.filter((r) => r.messageId === sent.MessageID).length, { timeout: 30_000 }).toBe(2);
    expect(receiver.received.filter((r) => r.messageId === sent.MessageID).map((r) => r.webhookId)).toEqual([originalId, originalId]);
    await row.getByLabel("Delivery status").selectOption("succeeded");
    // (Other deliveries may be listed too: the email telling the admins was sent as this same Demo account.)
    await expect(row.locator(`[data-testid="delivery-row"][data-delivery-id="${originalId.replace("msg_mailroom_", "")}"]`)).toContainText("succeeded", { timeout: 15_000 });

    // Nothing failed is left: the bulk replay queues none.
    await row.getByTestId("replay-failed").click();
    await expect(row.getByText("0 failed deliveries queued again.")).toBeVisible();
    await shot(page, "webhook-deliveries");
  } finally {
    if (webhookId) await api("DELETE", `/webhooks/${webhookId}`).catch(() => {});
    await receiver.close();
  }
});
