import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bouncedEventDataSchema,
  complainedEventDataSchema,
  deliveredEventDataSchema,
  notificationOf,
} from "../../lib/contract/notifications";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { sendViaApi, simpleEmail } from "../support/delivery-helpers";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { listWebhooksOf, registerWebhook, startReceiver, until, type Receiver } from "./webhooks-helpers";

/** The whole path: POST /email → sandbox MX → event → signed notification on a local receiver. */
describe("webhooks end to end with the sandbox", () => {
  let app: TestApp;
  let receiver: Receiver;
  let account: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_SANDBOX_COMPLAINT_DELAY: "200ms" });
    receiver = await startReceiver();
    account = await createTestAccount(app.ctx);
    await registerWebhook(app, account.apiKey, "delivery", `${receiver.url}/delivery`);
    await registerWebhook(app, account.apiKey, "bounce", `${receiver.url}/bounce`);
    await registerWebhook(app, account.apiKey, "complaint", `${receiver.url}/complaint`);
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  const of = (path: string) => receiver.requests.filter((r) => r.path === path);

  it("notifies delivered, bounced (failed and rejected) and complained for real sends", async () => {
    const delivered = await sendViaApi(app, account.apiKey, simpleEmail("ann@example.org"));
    const bounced = await sendViaApi(app, account.apiKey, simpleEmail("bounce@example.org"));
    const blocked = await sendViaApi(app, account.apiKey, simpleEmail("blocked@example.org"));
    const complained = await sendViaApi(app, account.apiKey, simpleEmail("complaint@example.org"));

    // ann, complaint (delivered twice), bounce, blocked, then the complaint itself.
    await until(async () => receiver.requests.length, (n) => n >= 5, 30_000);
    for (const r of receiver.requests) new Webhook(account.webhookSigningKey).verify(r.body, r.headers);

    const deliveries = of("/delivery").map((r) => notificationOf(deliveredEventDataSchema).parse(r.json).EventData);
    expect(deliveries).toEqual(
      expect.arrayContaining([
        { Event: "delivered", Domain: "example.com", MessageID: delivered, To: "ann@example.org" },
        { Event: "delivered", Domain: "example.com", MessageID: complained, To: "complaint@example.org" },
      ]),
    );
    const bounces = of("/bounce").map((r) => notificationOf(bouncedEventDataSchema).parse(r.json).EventData);
    const failed = bounces.find((b) => b.MessageID === bounced)!;
    expect(failed).toMatchObject({
      Event: "bounced",
      EventType: "failed",
      Domain: "example.com",
      BouncedEmailAddress: { EmailAddress: "bounce@example.org", Status: "5.1.1" },
      Code: "550",
    });
    expect(failed.BouncedEmailAddress.DiagnosticCode).toMatch(/^smtp; 550 5\.1\.1/);
    expect(bounces.find((b) => b.MessageID === blocked)).toMatchObject({ EventType: "rejected", BouncedEmailAddress: { Status: "5.7.1" } });
    expect(of("/complaint").map((r) => notificationOf(complainedEventDataSchema).parse(r.json).EventData)).toEqual([
      { Event: "complained", Domain: "example.com", MessageID: complained, To: "complaint@example.org" },
    ]);

    await until(
      () => listWebhooksOf(app, account.apiKey),
      (hooks) => hooks.every((h) => h.LastResponseCode === "200"),
    );
  });
});
