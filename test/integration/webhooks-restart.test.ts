import { afterAll, describe, expect, it } from "vitest";
import { notificationSchema } from "../../lib/contract/notifications";
import { sweepOverdue } from "../../lib/webhooks/notification-store";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";
import { insertMessage, listWebhooksOf, logTestEvents, registerWebhook, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

describe("webhook notifications survive a restart", () => {
  const apps: TestApp[] = [];
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const a of apps) await a.stop().catch(() => {});
    for (const r of receivers) await r.close();
  });

  async function start(env: Record<string, string>) {
    const app = await startTestApp(env);
    apps.push(app);
    return app;
  }

  it("delivers notifications queued while no worker ran, once a process with workers starts", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const DATABASE_URL = await createTestDatabase();
    const first = await start({ DATABASE_URL, MAILROOM_WORKERS: "off" });
    const account = await createTestAccount(first.ctx);
    await registerWebhook(first, account.apiKey, "delivery", `${receiver.url}/after-restart`);
    const messageId = await insertMessage(first, account.accountId);
    await logTestEvents(
      first,
      ["a", "b", "c"].map((n) => ({ accountId: account.accountId, messageId, type: "delivered" as const, recipient: `${n}@example.net` })),
    );
    await sleep(500);
    expect(receiver.requests).toHaveLength(0);
    await first.stop();

    const second = await start({ DATABASE_URL });
    const reqs = await receiver.waitFor(3);
    expect(reqs.map((r) => notificationSchema.parse(r.json).EventData).map((d) => (d as { To: string }).To).sort()).toEqual([
      "a@example.net",
      "b@example.net",
      "c@example.net",
    ]);
    const [hook] = await until(
      () => listWebhooksOf(second, account.apiKey),
      (l) => l[0]?.LastResponseCode === "200",
    );
    expect(hook!.LastResponseTryCounter).toBe("1");
  });

  it("resumes a pending retry after a restart", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.script.push({ status: 500, body: "not yet" });
    const DATABASE_URL = await createTestDatabase();
    const env = { DATABASE_URL, MAILROOM_WEBHOOK_RETRY_SCHEDULE: "2s" };
    const first = await start(env);
    const account = await createTestAccount(first.ctx);
    await registerWebhook(first, account.apiKey, "delivery", `${receiver.url}/retry-after-restart`);
    const messageId = await insertMessage(first, account.accountId);
    await logTestEvents(first, [{ accountId: account.accountId, messageId, type: "delivered", recipient: "r@example.net" }]);
    await receiver.waitFor(1);
    await until(
      () => listWebhooksOf(first, account.apiKey),
      (l) => l[0]?.LastResponseCode === "500",
    );
    await first.stop();

    const second = await start(env);
    const reqs = await receiver.waitFor(2);
    expect(reqs[0]!.headers["webhook-id"]).toBe(reqs[1]!.headers["webhook-id"]);
    const [hook] = await until(
      () => listWebhooksOf(second, account.apiKey),
      (l) => l[0]?.LastResponseCode === "200",
    );
    expect(hook!.LastResponseTryCounter).toBe("2");
    await sleep(500);
    expect(receiver.requests).toHaveLength(2);
  });

  it("re-queues a pending notification whose job was lost (the sweeper)", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const app = await start({});
    const account = await createTestAccount(app.ctx);
    const webhookId = await registerWebhook(app, account.apiKey, "delivery", `${receiver.url}/swept`);
    const messageId = await insertMessage(app, account.accountId);
    // An outbox row without a job, overdue by two minutes (as if its job had been lost).
    await app.ctx.database.pool.query(
      `INSERT INTO webhook_notifications (webhook_id, account_id, event_id, payload, next_attempt_at)
       VALUES ($1, $2, 0, $3, now() - interval '2 minutes')`,
      [webhookId, account.accountId, JSON.stringify({ Event: "delivered", Domain: "example.com", MessageID: messageId, To: "lost@example.net" })],
    );
    await sleep(700);
    expect(receiver.requests).toHaveLength(0);
    expect(await sweepOverdue(app.ctx.database, app.ctx.boss, 60_000)).toBe(1);
    const [req] = await receiver.waitFor(1);
    expect(notificationSchema.parse(req!.json).EventData).toMatchObject({ To: "lost@example.net" });
    // Swept once: not overdue any more.
    expect(await sweepOverdue(app.ctx.database, app.ctx.boss, 60_000)).toBe(0);
  });

  it("hands an attempt still hanging at shutdown back, so the next process delivers it at once", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.script.push({ status: 0, hang: true });
    const DATABASE_URL = await createTestDatabase();
    const env = { DATABASE_URL, MAILROOM_WEBHOOK_TIMEOUT: "60s" };
    const first = await start(env);
    const account = await createTestAccount(first.ctx);
    await registerWebhook(first, account.apiKey, "delivery", `${receiver.url}/hung-at-stop`);
    const messageId = await insertMessage(first, account.accountId);
    await logTestEvents(first, [{ accountId: account.accountId, messageId, type: "delivered", recipient: "h@example.net" }]);
    await receiver.waitFor(1);
    const t0 = Date.now();
    await first.stop();
    expect(Date.now() - t0).toBeLessThan(15_000);

    const second = await start(env);
    const t1 = Date.now();
    const reqs = await receiver.waitFor(2, 20_000);
    expect(reqs[1]!.at - t1).toBeLessThan(10_000);
    expect(reqs[1]!.headers["webhook-id"]).toBe(reqs[0]!.headers["webhook-id"]);
    await until(
      () => listWebhooksOf(second, account.apiKey),
      (l) => l[0]?.LastResponseCode === "200",
    );
  });
});
