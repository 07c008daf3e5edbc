import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bouncedEventDataSchema,
  clickedEventDataSchema,
  complainedEventDataSchema,
  deliveredEventDataSchema,
  notificationOf,
  notificationSchema,
  openedEventDataSchema,
  unsubscribedEventDataSchema,
} from "../../lib/contract/notifications";
import { rotateSigningKey, type CreatedAccount } from "../../lib/domain/accounts/accounts";
import { sendTestNotification } from "../../lib/webhooks/test-notification";
import { listWebhookAttempts } from "../../lib/domain/webhooks/webhooks";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import {
  insertMessage,
  listWebhooksOf,
  logTestEvents,
  registerWebhook,
  sleep,
  startReceiver,
  until,
  type Receiver,
  type Received,
} from "./webhooks-helpers";

/** A receiver's check of the body signature, written from docs/contract.md §10.3 alone. */
function mailgunSignatureValid(body: string, signingKey: string): boolean {
  const { Signature } = JSON.parse(body) as { Signature: { Timestamp: number; Token: string; Signature: string } };
  const expected = createHmac("sha256", signingKey).update(`${Signature.Timestamp}${Signature.Token}`).digest();
  const given = Buffer.from(Signature.Signature, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function expectSignedBy(req: Received, signingKey: string) {
  expect(mailgunSignatureValid(req.body, signingKey)).toBe(true);
  expect(new Webhook(signingKey).verify(req.body, req.headers)).toEqual(req.json);
  const ts = (req.json as { Signature: { Timestamp: number } }).Signature.Timestamp;
  expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(30);
  expect(req.headers["webhook-timestamp"]).toBe(String(ts));
  expect(req.headers["content-type"]).toBe("application/json");
}

describe("webhook notifications: payloads and signatures", () => {
  let app: TestApp;
  let receiver: Receiver;
  let account: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp();
    receiver = await startReceiver();
    account = await createTestAccount(app.ctx, { name: "Notified", domain: "mail.example.com" });
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it("sends every event type to its registration, with the payload of the contract and both signatures", async () => {
    for (const e of ["delivery", "bounce", "open", "click", "unsubscribe", "complaint"]) {
      await registerWebhook(app, account.apiKey, e, `${receiver.url}/${e}`);
    }
    const messageId = await insertMessage(app, account.accountId, "mail.example.com");
    const to = "ann@example.net";
    await logTestEvents(app, [
      { accountId: account.accountId, messageId, type: "accepted", recipient: to },
      { accountId: account.accountId, messageId, type: "delivered", recipient: to, reason: "250 2.0.0 Ok" },
      {
        accountId: account.accountId,
        messageId,
        type: "failed",
        recipient: "bounce@example.net",
        reason: "550 5.1.1 User unknown",
        details: { smtpCode: 550, enhancedCode: "5.1.1", diagnostic: "550 5.1.1 <bounce@example.net>: User unknown" },
      },
      {
        accountId: account.accountId,
        messageId,
        type: "rejected",
        recipient: "blocked@example.net",
        reason: "550 5.7.1 Blocked by policy",
        details: { smtpCode: 550, enhancedCode: "5.7.1", diagnostic: "550 5.7.1 Blocked by policy" },
      },
      { accountId: account.accountId, messageId, type: "opened", recipient: to, ip: "198.51.100.7" },
      { accountId: account.accountId, messageId, type: "clicked", recipient: to, ip: "198.51.100.8", url: "https://example.org/pricing?a=1" },
      { accountId: account.accountId, messageId, type: "unsubscribed", recipient: to, ip: "198.51.100.9" },
      { accountId: account.accountId, messageId, type: "complained", recipient: to },
    ]);
    // accepted notifies nothing: seven notifications for eight events.
    await receiver.waitFor(7);
    await sleep(300);
    expect(receiver.requests).toHaveLength(7);

    const byPath = (p: string) => receiver.requests.filter((r) => r.path === p);
    for (const r of receiver.requests) {
      expect(r.method).toBe("POST");
      notificationSchema.parse(r.json);
      expectSignedBy(r, account.webhookSigningKey);
    }
    const [delivered] = byPath("/delivery");
    expect(notificationOf(deliveredEventDataSchema).parse(delivered!.json).EventData).toEqual({
      Event: "delivered",
      Domain: "mail.example.com",
      MessageID: messageId,
      To: to,
    });
    const bounces = byPath("/bounce").map((r) => notificationOf(bouncedEventDataSchema).parse(r.json).EventData);
    expect(bounces.map((b) => b.EventType).sort()).toEqual(["failed", "rejected"]);
    expect(bounces.find((b) => b.EventType === "failed")).toEqual({
      Event: "bounced",
      EventType: "failed",
      Domain: "mail.example.com",
      MessageID: messageId,
      BouncedEmailAddress: {
        EmailAddress: "bounce@example.net",
        Status: "5.1.1",
        DiagnosticCode: "smtp; 550 5.1.1 <bounce@example.net>: User unknown",
      },
      Reason: "550 5.1.1 User unknown",
      Code: "550",
    });
    expect(notificationOf(openedEventDataSchema).parse(byPath("/open")[0]!.json).EventData).toEqual({
      Event: "opened",
      Domain: "mail.example.com",
      MessageID: messageId,
      To: to,
      IPAddress: "198.51.100.7",
    });
    expect(notificationOf(clickedEventDataSchema).parse(byPath("/click")[0]!.json).EventData).toMatchObject({
      Event: "clicked",
      IPAddress: "198.51.100.8",
      Url: "https://example.org/pricing?a=1",
    });
    expect(notificationOf(unsubscribedEventDataSchema).parse(byPath("/unsubscribe")[0]!.json).EventData).toMatchObject({
      Event: "unsubscribed",
      IPAddress: "198.51.100.9",
    });
    expect(notificationOf(complainedEventDataSchema).parse(byPath("/complaint")[0]!.json).EventData).toEqual({
      Event: "complained",
      Domain: "mail.example.com",
      MessageID: messageId,
      To: to,
    });
    // Member order as the spec shows it.
    expect(Object.keys((delivered!.json as { EventData: object }).EventData)).toEqual(["Event", "Domain", "MessageID", "To"]);
    expect(delivered!.body.startsWith('{"Signature":{"Timestamp":')).toBe(true);

    // Each webhook record shows its last attempt.
    const hooks = await until(
      () => listWebhooksOf(app, account.apiKey),
      (list) => list.every((w) => w.LastResponseCode === "200"),
    );
    for (const w of hooks) {
      expect(w.LastResponseBody).toBe("ok");
      expect(w.LastResponseTryCounter).toBe("1");
      expect(w.LastResponseAt).not.toBe("1899-11-30T00:00:00.000Z");
    }
    const attempts = await listWebhookAttempts(app.ctx.database, account.accountId, Number(hooks[0]!.WebhookID));
    expect(attempts).toHaveLength(1);
    expect(attempts![0]).toMatchObject({ tryNumber: 1, statusCode: 200, bodyExcerpt: "ok", error: null });
  });

  it("matches registrations made in the notification vocabulary too", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Vocabulary twins" });
    await registerWebhook(app, acct.apiKey, "delivered", `${receiver.url}/twin-delivered`);
    await registerWebhook(app, acct.apiKey, "bounced", `${receiver.url}/twin-bounced`);
    const messageId = await insertMessage(app, acct.accountId);
    await logTestEvents(app, [
      { accountId: acct.accountId, messageId, type: "delivered", recipient: "a@example.net" },
      { accountId: acct.accountId, messageId, type: "failed", recipient: "b@example.net", reason: "550 5.1.1 no" },
    ]);
    await until(
      async () => receiver.requests.filter((r) => r.path.startsWith("/twin-")).map((r) => r.path).sort(),
      (paths) => paths.length === 2,
    );
    expect(receiver.requests.filter((r) => r.path.startsWith("/twin-")).map((r) => r.path).sort()).toEqual(["/twin-bounced", "/twin-delivered"]);
  });

  it("never sends one account's events to another account's webhooks", async () => {
    const a = await createTestAccount(app.ctx, { name: "A" });
    const b = await createTestAccount(app.ctx, { name: "B" });
    await registerWebhook(app, a.apiKey, "delivery", `${receiver.url}/iso-a`);
    await registerWebhook(app, b.apiKey, "delivery", `${receiver.url}/iso-b`);
    const ma = await insertMessage(app, a.accountId);
    const mb = await insertMessage(app, b.accountId);
    await logTestEvents(app, [
      { accountId: a.accountId, messageId: ma, type: "delivered", recipient: "x@example.net" },
      { accountId: a.accountId, messageId: ma, type: "delivered", recipient: "y@example.net" },
      { accountId: b.accountId, messageId: mb, type: "delivered", recipient: "z@example.net" },
    ]);
    const got = await until(
      async () => receiver.requests.filter((r) => r.path.startsWith("/iso-")),
      (r) => r.length >= 3,
    );
    await sleep(300);
    const seen = (p: string) =>
      receiver.requests.filter((r) => r.path === p).map((r) => (r.json as { EventData: { MessageID: string; To: string } }).EventData);
    expect(got.length).toBe(3);
    expect(seen("/iso-a").map((d) => d.MessageID)).toEqual([ma, ma]);
    expect(seen("/iso-a").map((d) => d.To).sort()).toEqual(["x@example.net", "y@example.net"]);
    expect(seen("/iso-b")).toEqual([expect.objectContaining({ MessageID: mb, To: "z@example.net" })]);
    for (const r of receiver.requests.filter((q) => q.path === "/iso-a")) expectSignedBy(r, a.webhookSigningKey);
    for (const r of receiver.requests.filter((q) => q.path === "/iso-b")) {
      expectSignedBy(r, b.webhookSigningKey);
      expect(mailgunSignatureValid(r.body, a.webhookSigningKey)).toBe(false);
    }
  });

  it("signs with the new key after rotation", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Rotating" });
    await registerWebhook(app, acct.apiKey, "open", `${receiver.url}/rotate`);
    const messageId = await insertMessage(app, acct.accountId);
    const newKey = await rotateSigningKey(app.ctx.database, acct.accountId);
    expect(newKey).not.toBe(acct.webhookSigningKey);
    await logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "opened", recipient: "r@example.net", ip: "192.0.2.4" }]);
    const [req] = await until(
      async () => receiver.requests.filter((r) => r.path === "/rotate"),
      (r) => r.length === 1,
    );
    expectSignedBy(req!, newKey);
    expect(mailgunSignatureValid(req!.body, acct.webhookSigningKey)).toBe(false);
    expect(() => new Webhook(acct.webhookSigningKey).verify(req!.body, req!.headers)).toThrow();
  });

  it("sends a signed test notification on demand and records nothing", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Tester" });
    const id = await registerWebhook(app, acct.apiKey, "bounce", `${receiver.url}/test-send`);
    receiver.script.push({ status: 202, body: "thanks" });
    const result = await sendTestNotification(app.ctx.database, acct.accountId, id, { timeoutMs: 5_000, allowPrivate: true });
    expect(result).toMatchObject({ statusCode: 202, body: "thanks" });
    const req = receiver.requests.find((r) => r.path === "/test-send")!;
    expectSignedBy(req, acct.webhookSigningKey);
    expect(notificationOf(bouncedEventDataSchema).parse(req.json).EventData.Event).toBe("bounced");
    const [hook] = await listWebhooksOf(app, acct.apiKey);
    expect(hook).toMatchObject({ LastResponseCode: "0", LastResponseTryCounter: "0" });
    expect(await listWebhookAttempts(app.ctx.database, acct.accountId, id)).toEqual([]);
    const { rows } = await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM events WHERE account_id = $1", [acct.accountId]);
    expect(rows[0].n).toBe(0);
    // Another account cannot use it.
    expect(await sendTestNotification(app.ctx.database, account.accountId, id, { timeoutMs: 5_000, allowPrivate: true })).toBeUndefined();
  });

  it("writes nothing for an account without webhooks, and an event rolled back notifies nobody", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Rolled back" });
    await registerWebhook(app, acct.apiKey, "delivery", `${receiver.url}/rollback`);
    const messageId = await insertMessage(app, acct.accountId);
    const { withTransaction } = await import("../../lib/storage/transaction");
    const { logEvents } = await import("../../lib/domain/events/event-log");
    await expect(
      withTransaction(app.ctx.database, async (tx) => {
        await logEvents(tx, app.ctx.boss, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "q@example.net" }]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await sleep(1_000);
    expect(receiver.requests.filter((r) => r.path === "/rollback")).toHaveLength(0);
    const { rows } = await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM webhook_notifications WHERE account_id = $1", [acct.accountId]);
    expect(rows[0].n).toBe(0);
  });
});
