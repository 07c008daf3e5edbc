import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeliveriesResponse } from "../../lib/contract/webhook-deliveries";
import { getDefaultAccount, type CreatedAccount } from "../../lib/domain/accounts/accounts";
import { addStaffUser } from "../../lib/domain/staff/staff-users";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { insertMessage, listWebhooksOf, logTestEvents, registerWebhook, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * Endpoints that keep failing (docs/contract.md §16): a 410 disables at
 * once, continuous failure past MAILROOM_WEBHOOK_DISABLE_AFTER (2 s here)
 * disables; notifications are then kept, not sent; re-enabling sends them;
 * the account's admins get an email through Mailroom itself (the sandbox
 * captures it), sent as the default account.
 */
describe("webhook disabling and re-enabling", () => {
  let app: TestApp;
  let instanceId: string;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      MAILROOM_WEBHOOK_RETRY_SCHEDULE: Array(20).fill("300ms").join(","),
      MAILROOM_WEBHOOK_TIMEOUT: "1s",
      MAILROOM_WEBHOOK_DISABLE_AFTER: "2s",
    });
    // The instance's default account (the first start's Demo account) sends the emails from its verified domain.
    instanceId = (await getDefaultAccount(app.ctx.database))!.id;
  });
  afterAll(async () => {
    await app?.stop();
    for (const r of receivers) await r.close().catch(() => {});
  });

  const list = async (acct: CreatedAccount, webhookId: number, query = "") =>
    (await (await app.fetch(`/api/v1/webhooks/${webhookId}/deliveries${query}`, { headers: bearer(acct.apiKey) })).json()) as DeliveriesResponse;
  const enable = async (acct: CreatedAccount, webhookId: number) => {
    const res = await app.fetch(`/api/v1/webhooks/${webhookId}/enable`, { method: "POST", headers: bearer(acct.apiKey) });
    return { status: res.status, body: (await res.json()) as { Queued: number } };
  };
  const webhookOf = async (acct: CreatedAccount, webhookId: number) => (await listWebhooksOf(app, acct.apiKey)).find((w) => w.WebhookID === String(webhookId))!;

  async function setup(name: string, admin: string) {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const acct = await createTestAccount(app.ctx, { name });
    await addStaffUser(app.ctx.database, { email: admin, role: "admin", password: "password-admin-1", accountId: acct.accountId });
    const webhookId = await registerWebhook(app, acct.apiKey, "delivery", `${receiver.url}/hook`);
    const messageId = await insertMessage(app, acct.accountId);
    const fire = (recipient: string) => logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient }]);
    return { receiver, acct, webhookId, fire };
  }

  /** The mails the sandbox MX captured for `to`, with the account and From of the message that sent each. */
  const mailsTo = async (to: string) =>
    (
      await app.ctx.database.pool.query<{ subject: string; account_id: string; from_email: string }>(
        `SELECT s.subject, m.account_id, m.from_email FROM sandbox_messages s JOIN messages m ON m.id = s.mailroom_message_id WHERE $1 = ANY (s.rcpt_to)`,
        [to],
      )
    ).rows;

  it("a 410 disables at once; later notifications are kept, not sent; re-enabling sends them; the admin is emailed", async () => {
    const { receiver, acct, webhookId, fire } = await setup("Gone", "ops@gone.example");
    receiver.fallback = () => ({ status: 410, body: "gone" });
    await fire("first@example.net");
    await receiver.waitFor(1);
    const w = await until(() => webhookOf(acct, webhookId), (x) => x.Status === "Disabled");
    expect(w.DisabledReason).toContain("410");
    expect(receiver.requests).toHaveLength(1); // 410 is not retried

    const mails = await until(() => mailsTo("ops@gone.example"), (m) => m.length > 0, 30_000);
    expect(mails[0]!.subject).toBe(`Webhook ${webhookId} of Gone was disabled`);
    expect(mails[0]).toMatchObject({ account_id: instanceId, from_email: "no-reply@example.com" });

    await fire("kept-1@example.net");
    await fire("kept-2@example.net");
    const kept = await until(() => list(acct, webhookId, "?Status=pending"), (r) => r.TotalRecords === 2);
    expect(kept.Deliveries.every((d) => d.Attempts === 0 && d.NextAttemptAt === null)).toBe(true);
    // Retry and replay wait for re-enabling.
    const replay = await app.fetch(`/api/v1/webhooks/${webhookId}/replay`, { method: "POST", headers: bearer(acct.apiKey), body: "{}" });
    expect(replay.status).toBe(422);
    await sleep(1_000);
    expect(receiver.requests).toHaveLength(1);

    receiver.fallback = () => ({ status: 200, body: "ok" });
    expect(await enable(acct, webhookId)).toEqual({ status: 200, body: { Queued: 2 } });
    await receiver.waitFor(3);
    for (const r of receiver.requests) new Webhook(acct.webhookSigningKey).verify(r.body, r.headers);
    expect(receiver.requests.slice(1).map((r) => (r.json as { EventData: { To: string } }).EventData.To).sort()).toEqual(["kept-1@example.net", "kept-2@example.net"]);
    expect((await webhookOf(acct, webhookId)).Status).toBe("Enabled");
    expect((await webhookOf(acct, webhookId)).DisabledReason).toBeUndefined();
    await until(() => list(acct, webhookId, "?Status=succeeded"), (r) => r.TotalRecords === 2);
    // Enabled already: nothing more to send.
    expect(await enable(acct, webhookId)).toEqual({ status: 200, body: { Queued: 0 } });
    await sleep(800);
    expect(receiver.requests).toHaveLength(3);
  });

  it("every attempt failing past the window disables; what was pending is kept; re-enabling replays it", async () => {
    const { receiver, acct, webhookId, fire } = await setup("Failing", "ops@failing.example");
    receiver.fallback = () => ({ status: 500, body: "down" });
    const t0 = Date.now();
    await fire("during@example.net");
    const w = await until(() => webhookOf(acct, webhookId), (x) => x.Status === "Disabled", 20_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_000);
    expect(w.DisabledReason).toMatch(/^Every attempt failed since \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.$/);
    const attemptsWhenDisabled = receiver.requests.length;
    expect(attemptsWhenDisabled).toBeGreaterThanOrEqual(3);
    // The notification was still retrying: it is kept (pending, not due), not failed.
    expect((await list(acct, webhookId, "?Status=pending")).Deliveries.map((d) => d.NextAttemptAt)).toEqual([null]);
    await fire("while-disabled@example.net");
    await sleep(1_000);
    expect(receiver.requests).toHaveLength(attemptsWhenDisabled);
    await until(() => mailsTo("ops@failing.example"), (m) => m.length === 1, 30_000);

    receiver.fallback = () => ({ status: 200, body: "ok" });
    const before = receiver.requests.length;
    expect((await enable(acct, webhookId)).body).toEqual({ Queued: 2 });
    await receiver.waitFor(before + 2);
    const sent = receiver.requests.slice(before).map((r) => (r.json as { EventData: { To: string } }).EventData.To);
    expect(sent.sort()).toEqual(["during@example.net", "while-disabled@example.net"]);
    const done = await until(() => list(acct, webhookId), (r) => r.Deliveries.every((d) => d.Status === "succeeded"));
    expect(done.TotalRecords).toBe(2);
    // Back to health: a success clears the failing streak.
    const { rows } = await app.ctx.database.pool.query("SELECT failing_since FROM webhooks WHERE id = $1", [webhookId]);
    expect(rows[0].failing_since).toBeNull();
  });
});
