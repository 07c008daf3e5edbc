import { afterAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";
import { insertMessage, logTestEvents, registerWebhook, sleep, startReceiver, type Receiver } from "./webhooks-helpers";

/** Two processes with notification workers on one database share the work and post each notification once. */
describe("webhook workers in two processes", () => {
  const apps: TestApp[] = [];
  let receiver: Receiver;
  afterAll(async () => {
    for (const a of apps) await a.stop();
    await receiver?.close();
  });

  it("delivers every notification exactly once when nothing fails", async () => {
    receiver = await startReceiver();
    const DATABASE_URL = await createTestDatabase();
    apps.push(await startTestApp({ DATABASE_URL }), await startTestApp({ DATABASE_URL }));
    const [a, b] = apps as [TestApp, TestApp];
    const account = await createTestAccount(a.ctx);
    await registerWebhook(a, account.apiKey, "delivery", `${receiver.url}/shared`);
    const messageId = await insertMessage(a, account.accountId);
    // Events logged through both processes, in small transactions.
    await Promise.all(
      Array.from({ length: 20 }, (_, t) =>
        logTestEvents(
          t % 2 ? a : b,
          Array.from({ length: 10 }, (_, i) => ({
            accountId: account.accountId,
            messageId,
            type: "delivered" as const,
            recipient: `r${t * 10 + i}@example.net`,
          })),
        ),
      ),
    );
    await receiver.waitFor(200, 30_000);
    await sleep(1_000);
    expect(receiver.requests).toHaveLength(200);
    const ids = new Set(receiver.requests.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(200);
    const tos = new Set(receiver.requests.map((r) => (r.json as { EventData: { To: string } }).EventData.To));
    expect(tos.size).toBe(200);
  });
});
