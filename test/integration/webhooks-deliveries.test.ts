import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESENDS_PER_HOUR, type DeliveriesResponse, type DeliveryDetail } from "../../lib/contract/webhook-deliveries";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { createApiClient } from "../../lib/api-client/client";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { insertMessage, listWebhooksOf, logTestEvents, registerWebhook, settledNotifications, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * Webhook deliveries and replay (docs/contract.md §16) against a real
 * receiver on loopback that verifies every signature with the
 * standardwebhooks package: a receiver down (refused, 500, timeout) then
 * up, bulk replay, retry, Retry-After, account isolation.
 */
describe("webhook deliveries: listing, replay, retry, Retry-After, isolation", () => {
  let app: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WEBHOOK_RETRY_SCHEDULE: "300ms,300ms", MAILROOM_WEBHOOK_TIMEOUT: "1s", MAILROOM_WEBHOOK_DISABLE_AFTER: "1h" });
  });
  afterAll(async () => {
    await app?.stop();
    for (const r of receivers) await r.close().catch(() => {});
  });

  const api = async <T>(acct: CreatedAccount, path: string, init: RequestInit = {}) => {
    const res = await app.fetch(`/api/v1${path}`, { ...init, headers: bearer(acct.apiKey) });
    return { status: res.status, body: (await res.json()) as T };
  };
  const list = (acct: CreatedAccount, webhookId: number, query = "") => api<DeliveriesResponse>(acct, `/webhooks/${webhookId}/deliveries${query}`);

  async function setup(name: string) {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const acct = await createTestAccount(app.ctx, { name });
    const webhookId = await registerWebhook(app, acct.apiKey, "delivery", `${receiver.url}/hook`);
    const messageId = await insertMessage(app, acct.accountId);
    const fire = (recipient = "ann@example.net") => logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient }]);
    return { receiver, acct, webhookId, messageId, fire };
  }

  /** Requests that verify with the account's key (standardwebhooks), by webhook-id. */
  const verifiedIds = (receiver: Receiver, acct: CreatedAccount, from = 0) =>
    receiver.requests.slice(from).map((r) => {
      new Webhook(acct.webhookSigningKey).verify(r.body, r.headers);
      return r.headers["webhook-id"]!;
    });

  it("a receiver down (refused, 500, timeout) then up: failed deliveries listed; a bulk replay sends each once with its webhook-id", async () => {
    const { receiver, acct, webhookId, messageId, fire } = await setup("Down then up");
    const port = Number(new URL(receiver.url).port);
    const t0 = Math.floor(Date.now() / 1000);

    // Connection refused: nothing listens.
    await receiver.close();
    await fire("refused@example.net");
    await until(() => list(acct, webhookId, "?Status=failed"), (r) => r.body.TotalRecords === 1);

    // Up, answering 500 with a long body; then hanging past the 1 s timeout.
    const up = await startReceiver(() => ({ status: 500, body: "x".repeat(5000) }), port);
    receivers.push(up);
    await fire("error@example.net");
    await until(() => list(acct, webhookId, "?Status=failed"), (r) => r.body.TotalRecords === 2);
    up.fallback = () => ({ status: 200, hang: true });
    await fire("timeout@example.net");
    const failed = await until(() => list(acct, webhookId, "?Status=failed"), (r) => r.body.TotalRecords === 3, 20_000);
    expect(up.requests).toHaveLength(6); // 3 attempts of the 500 one, 3 of the hanging one

    expect(failed.status).toBe(200);
    expect(failed.body.Deliveries.map((d) => [d.Status, d.Attempts, d.LastResponseCode, d.Event, d.MessageID, d.NextAttemptAt])).toEqual([
      ["failed", 3, 0, "delivered", messageId, null],
      ["failed", 3, 500, "delivered", messageId, null],
      ["failed", 3, 0, "delivered", messageId, null],
    ]);
    expect((await list(acct, webhookId, "?Status=succeeded")).body).toEqual({ TotalRecords: 0, Deliveries: [] });
    expect((await list(acct, webhookId, `?StartDate=${t0 - 5}&EndDate=${t0 + 600}&RetrieveCount=2&StartFrom=1`)).body.Deliveries).toHaveLength(2);
    expect((await list(acct, webhookId, `?EndDate=${t0 - 5}`)).body.TotalRecords).toBe(0);
    expect((await list(acct, webhookId, `?StartDate=${Number.MAX_SAFE_INTEGER}`)).body.TotalRecords).toBe(0);

    // The attempt log: refused connections have an error; the 500's body is kept to 4 KB (the webhook record shows 1,000 characters).
    const ids = failed.body.Deliveries.map((d) => d.DeliveryID).reverse(); // oldest first
    const refused = await api<DeliveryDetail>(acct, `/webhooks/${webhookId}/deliveries/${ids[0]}`);
    expect(refused.body.AttemptLog).toHaveLength(3);
    expect(refused.body.AttemptLog.every((a) => a.ResponseCode === 0 && a.Error !== "")).toBe(true);
    const error500 = await api<DeliveryDetail>(acct, `/webhooks/${webhookId}/deliveries/${ids[1]}`);
    expect(error500.body.AttemptLog.map((a) => [a.ResponseCode, a.ResponseBody.length])).toEqual([
      [500, 4096],
      [500, 4096],
      [500, 4096],
    ]);
    expect(error500.body.AttemptLog[0]!.DurationMs).toBeGreaterThanOrEqual(0);

    // Up for good: two replays at once queue each delivery once.
    up.fallback = () => ({ status: 200, body: "ok" });
    const from = up.requests.length;
    const replays = await Promise.all(
      [0, 1].map(() => api<{ Queued: number }>(acct, `/webhooks/${webhookId}/replay`, { method: "POST", body: JSON.stringify({ Status: "failed", StartDate: t0 - 5 }) })),
    );
    expect(replays.map((r) => r.status)).toEqual([200, 200]);
    expect(replays.map((r) => r.body.Queued).sort()).toEqual([0, 3]);
    await up.waitFor(from + 3);
    // Settled (nothing pending, so nothing more is posted: the dispatcher claims only pending rows); 500 ms catch a post in flight.
    await settledNotifications(app, webhookId);
    await sleep(500);
    const replayed = verifiedIds(up, acct, from);
    expect(replayed.sort()).toEqual(ids.map((id) => `msg_mailroom_${id}`).sort());
    const after = await until(() => list(acct, webhookId), (r) => r.body.Deliveries.every((d) => d.Status === "succeeded"));
    expect(after.body.Deliveries.map((d) => [d.Attempts, d.LastResponseCode])).toEqual([
      [4, 200],
      [4, 200],
      [4, 200],
    ]);
    // Nothing failed is left; replaying again queues nothing.
    expect((await api<{ Queued: number }>(acct, `/webhooks/${webhookId}/replay`, { method: "POST", body: "{}" })).body).toEqual({ Queued: 0 });

    // Retry of one: sent again now with the same webhook-id; while it is in flight, a second retry queues nothing.
    up.script.push({ status: 200, hang: true });
    const retry = () => api<{ Queued: number }>(acct, `/webhooks/${webhookId}/deliveries/${ids[2]}/retry`, { method: "POST" });
    expect((await retry()).body).toEqual({ Queued: 1 });
    await up.waitFor(from + 4);
    expect((await retry()).body).toEqual({ Queued: 0 });
    expect(up.requests[from + 3]!.headers["webhook-id"]).toBe(`msg_mailroom_${ids[2]}`);
    // A retried delivery gets one attempt: the hang times out and it is failed, not retried.
    const one = await until(() => api<DeliveryDetail>(acct, `/webhooks/${webhookId}/deliveries/${ids[2]}`), (r) => r.body.Status === "failed");
    expect(one.body.AttemptLog.map((a) => a.ResponseCode)).toEqual([0, 0, 0, 200, 0]);
    // Settled (nothing pending, so nothing more is posted: the dispatcher claims only pending rows); 500 ms catch a post in flight.
    await settledNotifications(app, webhookId);
    await sleep(500);
    expect(up.requests).toHaveLength(from + 4);
  });

  it("resends are bounded: a replay of succeeded ones repeated posts nothing again; past the account's resends of the hour, 429 (ADR 0411)", async () => {
    const { receiver, acct, webhookId, fire } = await setup("Resends bounded");
    const t0 = Math.floor(Date.now() / 1000);
    for (const to of ["a@example.net", "b@example.net", "c@example.net"]) await fire(to);
    const done = await until(() => list(acct, webhookId, "?Status=succeeded"), (r) => r.body.TotalRecords === 3);
    const ids = done.body.Deliveries.map((d) => d.DeliveryID);
    await receiver.waitFor(3);
    const replay = (body: unknown) => api<{ Queued: number }>(acct, `/webhooks/${webhookId}/replay`, { method: "POST", body: JSON.stringify(body) });

    // The first replay of the succeeded ones sends each once more.
    expect((await replay({ Status: "succeeded", StartDate: t0 - 5 })).body).toEqual({ Queued: 3 });
    await receiver.waitFor(6);
    await until(() => list(acct, webhookId, "?Status=succeeded"), (r) => r.body.Deliveries.every((d) => d.Attempts === 2));
    // Asked again (and again) within the hour: nothing is posted again.
    for (let i = 0; i < 3; i++) expect((await replay({ Status: "succeeded" })).body).toEqual({ Queued: 0 });
    // Settled (nothing pending, so nothing more is posted: the dispatcher claims only pending rows); 500 ms catch a post in flight.
    await settledNotifications(app, webhookId);
    await sleep(500);
    expect(receiver.requests).toHaveLength(6);
    // One asked for by its id is sent again (a retry is explicit).
    expect((await api<{ Queued: number }>(acct, `/webhooks/${webhookId}/deliveries/${ids[0]}/retry`, { method: "POST" })).body).toEqual({ Queued: 1 });
    await receiver.waitFor(7);

    // The account has queued 4 resends this hour; as if it had queued all but one of its budget:
    const { rows } = await app.ctx.database.pool.query<{ queued: number }>("SELECT queued FROM webhook_resend_windows WHERE account_id = $1", [acct.accountId]);
    expect(rows).toEqual([{ queued: 4 }]);
    await app.ctx.database.pool.query("UPDATE webhook_resend_windows SET queued = $2 WHERE account_id = $1", [acct.accountId, RESENDS_PER_HOUR - 1]);
    await until(() => api<DeliveryDetail>(acct, `/webhooks/${webhookId}/deliveries/${ids[1]}`), (r) => r.body.Status === "succeeded");
    expect((await api<{ Queued: number }>(acct, `/webhooks/${webhookId}/deliveries/${ids[1]}/retry`, { method: "POST" })).body).toEqual({ Queued: 1 });
    await receiver.waitFor(8);
    await until(() => api<DeliveryDetail>(acct, `/webhooks/${webhookId}/deliveries/${ids[2]}`), (r) => r.body.Status === "succeeded");
    for (const res of [
      await app.fetch(`/api/v1/webhooks/${webhookId}/deliveries/${ids[2]}/retry`, { method: "POST", headers: bearer(acct.apiKey) }),
      await app.fetch(`/api/v1/webhooks/${webhookId}/replay`, { method: "POST", headers: bearer(acct.apiKey), body: JSON.stringify({ Status: "failed" }) }),
    ]) {
      expect(res.status).toBe(429);
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(await res.json()).toEqual({ Errors: [{ Code: 429, Message: "Too many requests" }] });
    }
    // Settled (nothing pending, so nothing more is posted: the dispatcher claims only pending rows); 500 ms catch a post in flight.
    await settledNotifications(app, webhookId);
    await sleep(500);
    expect(receiver.requests).toHaveLength(8);
    verifiedIds(receiver, acct);
  });

  it("honours a 429's Retry-After: the next attempt waits for it", async () => {
    const { receiver, acct, fire } = await setup("Retry-After");
    receiver.script.push({ status: 429, body: "slow down", headers: { "Retry-After": "2" } });
    await fire();
    const [first, second] = await receiver.waitFor(2, 10_000);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_900);
    expect(verifiedIds(receiver, acct)).toEqual([first!.headers["webhook-id"], first!.headers["webhook-id"]]);
  });

  it("refuses bad parameters with the 422 envelope, and another account's webhook or delivery with 404", async () => {
    const a = await setup("Isolation A");
    const b = await setup("Isolation B");
    await a.fire();
    const [d] = (await until(() => list(a.acct, a.webhookId), (r) => r.body.Deliveries[0]?.Status === "succeeded")).body.Deliveries;
    const id = d!.DeliveryID;

    for (const q of ["?Status=bogus", "?RetrieveCount=0", "?RetrieveCount=101", "?StartFrom=-1", "?StartDate=20&EndDate=10", "?StartDate=soon"]) {
      const r = await list(a.acct, a.webhookId, q);
      expect([q, r.status]).toEqual([q, 422]);
      expect((r.body as unknown as { Errors: { Code: number }[] }).Errors[0]!.Code).toBe(422);
    }
    expect((await api(a.acct, `/webhooks/${a.webhookId}/deliveries/abc`)).status).toBe(422);
    expect((await api(a.acct, `/webhooks/${a.webhookId}/replay`, { method: "POST", body: JSON.stringify({ Status: "pending" }) })).status).toBe(422);
    expect((await api(a.acct, `/webhooks/${a.webhookId}/replay`, { method: "POST", body: "not json" })).status).toBe(422);

    const foreign: [string, string][] = [
      ["GET", `/webhooks/${a.webhookId}/deliveries`],
      ["GET", `/webhooks/${a.webhookId}/deliveries/${id}`],
      ["POST", `/webhooks/${a.webhookId}/deliveries/${id}/retry`],
      ["POST", `/webhooks/${a.webhookId}/replay`],
      ["POST", `/webhooks/${a.webhookId}/enable`],
      // B's own webhook with A's delivery
      ["GET", `/webhooks/${b.webhookId}/deliveries/${id}`],
      ["POST", `/webhooks/${b.webhookId}/deliveries/${id}/retry`],
      ["GET", `/webhooks/999999999/deliveries`],
    ];
    for (const [method, path] of foreign) {
      const r = await api<{ Errors: { Code: number }[] }>(b.acct, path, { method, ...(method === "POST" && { body: "{}" }) });
      expect([method, path, r.status, r.body.Errors[0]!.Code]).toEqual([method, path, 404, 404]);
    }
    expect((await list(b.acct, b.webhookId)).body.TotalRecords).toBe(0);
    // The typed client parses the same answers (the dashboard's path).
    const client = createApiClient({ baseUrl: app.url, apiKey: a.acct.apiKey });
    expect((await client.listWebhookDeliveries(a.webhookId, { Status: "succeeded" })).Deliveries.map((x) => x.DeliveryID)).toEqual([id]);
    expect((await client.getWebhookDelivery(a.webhookId, id)).AttemptLog).toHaveLength(1);
    expect(await client.enableWebhook(a.webhookId)).toEqual({ Queued: 0 });
    expect((await listWebhooksOf(app, a.acct.apiKey))[0]!.Status).toBe("Enabled");
  });
});
