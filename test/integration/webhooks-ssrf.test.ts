import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listWebhookAttempts } from "../../lib/domain/webhooks/webhooks";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { insertMessage, listWebhooksOf, logTestEvents, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * The guard runs again at every attempt: a destination that has become
 * internal since registration (DNS changed, or private destinations were
 * allowed then and are not now) is never contacted.
 */
describe("SSRF guard at dispatch", () => {
  let app: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_ALLOW_PRIVATE_WEBHOOKS: "false", MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s" });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it("refuses to post to a loopback destination and records why", async () => {
    const account = await createTestAccount(app.ctx);
    // Registered before the operator turned private destinations off.
    const { rows } = await app.ctx.database.pool.query<{ id: number }>(
      "INSERT INTO webhooks (account_id, event, url) VALUES ($1, 'delivery', $2) RETURNING id",
      [account.accountId, `${receiver.url}/internal`],
    );
    const webhookId = rows[0]!.id;
    const messageId = await insertMessage(app, account.accountId);
    await logTestEvents(app, [{ accountId: account.accountId, messageId, type: "delivered", recipient: "a@example.net" }]);
    const log = await until(
      async () => (await listWebhookAttempts(app.ctx.database, account.accountId, webhookId))!,
      (l) => l.length >= 2,
    );
    expect(log[0]).toMatchObject({ statusCode: 0 });
    expect(log[0]!.error).toMatch(/destination refused: 127\.0\.0\.1 is a loopback address/);
    const [hook] = await listWebhooksOf(app, account.apiKey);
    expect(hook).toMatchObject({ LastResponseCode: "0", LastResponseTryCounter: "2" });
    await sleep(300);
    expect(receiver.requests).toHaveLength(0);
  });
});
