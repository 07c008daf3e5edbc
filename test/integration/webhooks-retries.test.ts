import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notificationSchema } from "../../lib/contract/notifications";
import { listWebhookAttempts } from "../../lib/domain/webhooks/webhooks";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import {
  insertMessage,
  listWebhooksOf,
  logTestEvents,
  quietSince,
  registerWebhook,
  settledNotifications,
  sleep,
  startReceiver,
  until,
  type Receiver,
} from "./webhooks-helpers";

/** Retries on a schedule of seconds (1s, 1s, 2s: four attempts in all) and a 1 s timeout. */
describe("webhook delivery: retries, 406, timeouts, deletion", () => {
  let app: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s,2s", MAILROOM_WEBHOOK_TIMEOUT: "1s" });
  });
  afterAll(async () => {
    await app?.stop();
    for (const r of receivers) await r.close();
  });

  async function setup(event = "delivery") {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const acct = await createTestAccount(app.ctx, { name: `Retries ${receivers.length}` });
    const webhookId = await registerWebhook(app, acct.apiKey, event, `${receiver.url}/hook`);
    const messageId = await insertMessage(app, acct.accountId);
    const fire = () => logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "ann@example.net" }]);
    const record = async () => (await listWebhooksOf(app, acct.apiKey)).find((w) => w.WebhookID === String(webhookId))!;
    return { receiver, acct, webhookId, messageId, fire, record };
  }

  it("retries 500, 500 then succeeds on 200: three attempts, the record ends at 200 with try counter 3", async () => {
    const { receiver, acct, webhookId, fire, record } = await setup();
    receiver.script.push({ status: 500, body: "boom 1" }, { status: 500, body: "boom 2" }, { status: 200, body: "finally" });
    const t0 = Date.now();
    await fire();
    const reqs = await receiver.waitFor(3);
    // 1 s between the first and second attempts, 1 s between the second and third.
    expect(reqs[1]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(900);
    expect(reqs[2]!.at - reqs[1]!.at).toBeGreaterThanOrEqual(900);
    expect(reqs[2]!.at - t0).toBeLessThan(10_000); // seconds, not the default minutes
    const w = await until(record, (r) => r.LastResponseCode === "200");
    expect(w).toMatchObject({ LastResponseCode: "200", LastResponseBody: "finally", LastResponseTryCounter: "3" });
    // Delivered: no retry is scheduled any more; 500 ms after the last post catch a duplicate already in flight.
    await settledNotifications(app, webhookId);
    await quietSince(receiver, 500);
    expect(receiver.requests).toHaveLength(3);

    // One notification: webhook-id stable, token and signature new per attempt, same EventData.
    expect(new Set(reqs.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const bodies = reqs.map((r) => notificationSchema.parse(r.json));
    expect(new Set(bodies.map((b) => b.Signature.Token)).size).toBe(3);
    expect(bodies[0]!.EventData).toEqual(bodies[2]!.EventData);

    const log = await listWebhookAttempts(app.ctx.database, acct.accountId, webhookId);
    expect(log!.map((a) => [a.tryNumber, a.statusCode, a.bodyExcerpt])).toEqual([
      [3, 200, "finally"],
      [2, 500, "boom 2"],
      [1, 500, "boom 1"],
    ]);
    expect(log!.every((a) => a.durationMs >= 0 && !Number.isNaN(Date.parse(a.attemptedAt)))).toBe(true);
  });

  it("stops at 406 without retrying", async () => {
    const { receiver, webhookId, fire, record } = await setup();
    receiver.script.push({ status: 406, body: "not acceptable" });
    await fire();
    await receiver.waitFor(1);
    const w = await until(record, (r) => r.LastResponseCode === "406");
    expect(w).toMatchObject({ LastResponseBody: "not acceptable", LastResponseTryCounter: "1" });
    // Failed, not pending: no retry is scheduled; 500 ms after the post catch a duplicate already in flight.
    await settledNotifications(app, webhookId);
    await quietSince(receiver, 500);
    expect(receiver.requests).toHaveLength(1);
  });

  it("gives up after the last attempt of the schedule", async () => {
    const { receiver, webhookId, fire, record } = await setup();
    receiver.fallback = () => ({ status: 503, body: "down" });
    await fire();
    await receiver.waitFor(4, 20_000);
    const w = await until(record, (r) => r.LastResponseTryCounter === "4");
    expect(w.LastResponseCode).toBe("503");
    // The row leaves pending at the schedule's end, so no fifth post is scheduled; 500 ms catch one in flight.
    await settledNotifications(app, webhookId);
    await quietSince(receiver, 500);
    expect(receiver.requests).toHaveLength(4);
    const { rows } = await app.ctx.database.pool.query(
      "SELECT status, attempts FROM webhook_notifications WHERE webhook_id = $1",
      [Number(w.WebhookID)],
    );
    expect(rows).toEqual([{ status: "failed", attempts: 4 }]);
  });

  it("times out a receiver that hangs (status 0), then retries", async () => {
    const { receiver, acct, webhookId, fire, record } = await setup();
    receiver.script.push({ status: 0, hang: true }, { status: 204 });
    await fire();
    const reqs = await receiver.waitFor(2);
    // The first attempt was cut at the 1 s timeout, then the retry came 1 s later.
    expect(reqs[1]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(1_800);
    const w = await until(record, (r) => r.LastResponseCode === "204");
    expect(w.LastResponseTryCounter).toBe("2");
    const log = await listWebhookAttempts(app.ctx.database, acct.accountId, webhookId);
    expect(log![1]).toMatchObject({ tryNumber: 1, statusCode: 0, bodyExcerpt: "" });
    expect(log![1]!.error).toMatch(/timed out/);
    expect(log![1]!.durationMs).toBeGreaterThanOrEqual(950);
    expect(log![1]!.durationMs).toBeLessThan(3_000);
  });

  it("keeps the first 1,000 characters of a long answer and records a refused connection as 0", async () => {
    const { receiver, fire, record } = await setup();
    receiver.script.push({ status: 500, body: "é".repeat(5_000) }, { status: 200 });
    await fire();
    await until(record, (r) => r.LastResponseCode === "500");
    const w = await record();
    expect(w.LastResponseBody).toBe("é".repeat(1_000));

    // A closed port: no HTTP answer.
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const acct = await createTestAccount(app.ctx, { name: "Refused" });
    const id = await registerWebhook(app, acct.apiKey, "delivery", `${url}/gone`);
    const messageId = await insertMessage(app, acct.accountId);
    await logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "x@example.net" }]);
    const log = await until(
      async () => (await listWebhookAttempts(app.ctx.database, acct.accountId, id))!,
      (l) => l.length >= 1,
    );
    expect(log[0]).toMatchObject({ statusCode: 0, tryNumber: 1 });
    expect(log[0]!.error).toMatch(/ECONNREFUSED/);
    const [hook] = await listWebhooksOf(app, acct.apiKey);
    expect(hook).toMatchObject({ LastResponseCode: "0", LastResponseTryCounter: "1" });
  });

  it("sends nothing more to a webhook deleted while a retry is pending", async () => {
    const { receiver, acct, webhookId, fire } = await setup();
    receiver.fallback = () => ({ status: 500 });
    await fire();
    await receiver.waitFor(1);
    const del = await app.fetch(`/api/v1/webhooks/${webhookId}`, { method: "DELETE", headers: bearer(acct.apiKey) });
    expect(del.status).toBe(200);
    // The pending retry was due 1 s after the first post (the schedule's first step): 1.5 s after it, it would have come.
    await quietSince(receiver, 1_500);
    expect(receiver.requests).toHaveLength(1);
    const { rows } = await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM webhook_notifications WHERE webhook_id = $1", [webhookId]);
    expect(rows[0].n).toBe(0);
    // Events after the deletion notify nothing either.
    const messageId = await insertMessage(app, acct.accountId);
    await logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "b@example.net" }]);
    // A notification is posted on its NOTIFY within milliseconds (the tests above), so 500 ms would see one.
    await sleep(500);
    expect(receiver.requests).toHaveLength(1);
  });

  it("keeps a fast receiver fast while another one hangs", async () => {
    const slow = await setup();
    const fast = await setup();
    slow.receiver.fallback = () => ({ status: 0, hang: true });
    await logTestEvents(
      app,
      Array.from({ length: 160 }, (_, i) => ({
        accountId: slow.acct.accountId,
        messageId: slow.messageId,
        type: "delivered" as const,
        recipient: `slow${i}@example.net`,
      })),
    );
    await slow.receiver.waitFor(10);
    const t0 = Date.now();
    await fast.fire();
    const [req] = await fast.receiver.waitFor(1);
    // A worker pool shared by all destinations (32 at a time) would hold it behind 160 requests that hang 1 s each: 5 s.
    expect(req!.at - t0).toBeLessThan(3_000);
  });
});
