import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notificationSchema } from "../../lib/contract/notifications";
import { runMaintenance } from "../support/run-now";
import { STRANDED_GRACE_MS } from "../../lib/delivery/stranded-recipients";
import { startNotifications } from "../../lib/webhooks/start";
import { createTestAccount } from "../support/fixtures";
import { deliverJobHasMessage, eventsOf, expectNoRecipientLeftQueued, sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";
import { listWebhooksOf, logTestEvents, insertMessage, registerWebhook, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * No accepted recipient is lost: a delivery that throws (not an SMTP
 * outcome) is retried on the delivery schedule and then failed with an
 * internal-error Reason and its bounce webhook; a recipient whose job
 * vanished, or that is past the max age, is finalised by the maintenance
 * sweep; a notification that cannot be built is a recorded failed attempt.
 * Real PostgreSQL, the real sandbox MX, a real HTTP receiver.
 */
describe("poison messages: an internal error inside the delivery job", () => {
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startTestApp({ MAILROOM_DELIVERY_RETRY_SCHEDULE: "300ms", MAILROOM_DELIVERY_MAX_AGE: "3s" });
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await receiver?.close();
  });

  it("a DKIM key that does not parse: retried on the schedule, then `failed` naming an internal error, with the bounce webhook", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Poison", domain: "poison.test" });
    // A real poison: the account's stored signing key is damaged (a bad import, a botched restore).
    await app.ctx.database.pool.query(
      "UPDATE sender_domains SET dkim_private_key = $2 WHERE account_id = $1",
      [acct.accountId, "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n"],
    );
    await registerWebhook(app, acct.apiKey, "bounce", `${receiver.url}/bounces`);
    const id = await sendViaApi(app, acct.apiKey, simpleEmail(["ann@example.org", "bob@example.org"], { From: { email: "shop@poison.test" } }));

    const failed = await waitForEvent(app.ctx, id, "failed", "ann@example.org", 30_000);
    await waitForEvent(app.ctx, id, "failed", "bob@example.org", 30_000);
    expect(failed.reason).toMatch(/^Delivery gave up after \d+ attempts: Internal error: Error \(ERR_OSSL_[A-Z_]+\)$/);
    expect(failed.reason).not.toMatch(/DECODER|routines|at .*\.ts/); // the class, never the message or a stack
    const attempts = Number(/after (\d+) attempts/.exec(failed.reason)![1]);
    expect(attempts).toBeGreaterThanOrEqual(3); // retried on the 300 ms schedule within the 3 s max age
    expect(failed.details).toMatchObject({ enhancedCode: "4.3.0", bounceType: "soft", attempts });
    const { rows } = await app.ctx.database.pool.query("SELECT status FROM message_recipients WHERE message_id = $1", [id]);
    expect(rows.map((r) => r.status)).toEqual(["failed", "failed"]);
    expect((await eventsOf(app.ctx, id)).filter((e) => e.type === "delivered")).toHaveLength(0);

    const reqs = await receiver.waitFor(2);
    const bounces = reqs.map((r) => notificationSchema.parse(r.json).EventData) as { Event: string; EventType: string; MessageID: string; Reason: string }[];
    expect(bounces.map((b) => [b.Event, b.EventType, b.MessageID])).toEqual([
      ["bounced", "failed", id],
      ["bounced", "failed", id],
    ]);
    expect(bounces[0]!.Reason).toMatch(/Internal error: Error \(ERR_OSSL_/);
  });
});

describe("the maintenance sweep finalises stranded recipients", () => {
  let app: TestApp;
  let receiver: Receiver;
  let notifications: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    receiver = await startReceiver();
    // No workers: jobs stay in the queue until the test removes them or the sweep runs.
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_DELIVERY_MAX_AGE: "1h" });
  });
  afterAll(async () => {
    await notifications?.stop();
    if (app) await expectNoRecipientLeftQueued(app.ctx, 0);
    await app?.stop();
    await receiver?.close();
  });

  const later = () => new Date(Date.now() + STRANDED_GRACE_MS + 1000);

  it("fails a recipient whose deliver job was deleted, with the bounce notification; leaves one with a live job alone", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Stranded" });
    const webhookId = await registerWebhook(app, acct.apiKey, "bounce", `${receiver.url}/stranded`);
    const lost = await sendViaApi(app, acct.apiKey, simpleEmail(["lost@example.org"]));
    const live = await sendViaApi(app, acct.apiKey, simpleEmail(["live@example.org"]));
    const pool = app.ctx.database.pool;
    const { rowCount } = await pool.query(`DELETE FROM pgboss.job WHERE name = 'deliver' AND ${deliverJobHasMessage("$1")}`, [lost]);
    expect(rowCount).toBe(1);

    // Within the grace period nothing happens (a job may be committing right now).
    expect((await runMaintenance(app.ctx)).strandedRecipients).toBe(0);
    const report = await runMaintenance(app.ctx, later());
    expect(report.strandedRecipients).toBe(1);
    const e = await waitForEvent(app.ctx, lost, "failed", "lost@example.org");
    expect(e.reason).toBe("Internal error: the delivery job ended without an outcome");
    expect(e.details).toMatchObject({ enhancedCode: "5.3.0" });
    expect((await eventsOf(app.ctx, live)).map((x) => x.type)).toEqual(["accepted"]);
    // Idempotent: a second sweep finds nothing.
    expect((await runMaintenance(app.ctx, later())).strandedRecipients).toBe(0);

    notifications = await startNotifications(app.ctx, { workers: true });
    const [req] = await receiver.waitFor(1);
    expect(notificationSchema.parse(req!.json).EventData).toMatchObject({ Event: "bounced", EventType: "failed", MessageID: lost });
    const record = await until(
      async () => (await listWebhooksOf(app, acct.apiKey)).find((w) => w.WebhookID === String(webhookId))!,
      (w) => w.LastResponseCode === "200",
    );
    expect(record.LastResponseTryCounter).toBe("1");

    // The live one: past the delivery max age (plus the job expiry and grace) it is failed too. The sweep runs
    // three hours on rather than the message going three hours back: before 03:00 UTC that would move it to
    // yesterday's table, away from its recipient's day (docs/adr/0044).
    expect((await runMaintenance(app.ctx, new Date(Date.now() + 3 * 3_600_000))).strandedRecipients).toBe(1);
    const expired = await waitForEvent(app.ctx, live, "failed", "live@example.org");
    expect(expired.reason).toBe("Delivery expired: still pending 1h after acceptance");
    expect(expired.details).toMatchObject({ enhancedCode: "5.4.7" });
    await receiver.waitFor(2);
  });

  it("takes a recipient in a packed job, or in a job written before packing, for live; fails it once that job is gone", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Packed" });
    const pool = app.ctx.database.pool;
    const ids = [];
    for (const to of ["p1@example.org", "p2@example.net", "old@example.org"]) ids.push(await sendViaApi(app, acct.apiKey, simpleEmail([to])));
    const entryOf = async (messageId: string) => {
      const { rows } = await pool.query<{ id: string }>("SELECT id FROM message_recipients WHERE message_id = $1", [messageId]);
      return { messageId, recipientIds: rows.map((r) => Number(r.id)) };
    };
    const [p1, p2, old] = await Promise.all(ids.map(entryOf));
    const { rowCount } = await pool.query(`DELETE FROM pgboss.job WHERE name = 'deliver' AND (${deliverJobHasMessage("$1")} OR ${deliverJobHasMessage("$2")} OR ${deliverJobHasMessage("$3")})`, ids);
    expect(rowCount).toBe(3);
    // One job carrying two messages, and one in the payload shape of the versions before packing.
    const packed = await app.ctx.boss.send("deliver", { messages: [p1, p2] });
    await app.ctx.boss.send("deliver", old!);
    expect((await runMaintenance(app.ctx, later())).strandedRecipients).toBe(0);

    await pool.query("DELETE FROM pgboss.job WHERE id = $1", [packed]);
    expect((await runMaintenance(app.ctx, later())).strandedRecipients).toBe(2);
    for (const [id, to] of [[ids[0]!, "p1@example.org"], [ids[1]!, "p2@example.net"]]) {
      expect((await waitForEvent(app.ctx, id!, "failed", to)).reason).toBe("Internal error: the delivery job ended without an outcome");
    }
    expect((await eventsOf(app.ctx, ids[2]!)).map((x) => x.type)).toEqual(["accepted"]);
    await pool.query(`DELETE FROM pgboss.job WHERE name = 'deliver' AND ${deliverJobHasMessage("$1")}`, [ids[2]]);
    await pool.query("DELETE FROM pgboss.job WHERE name = 'deliver' AND data->>'messageId' = $1", [ids[2]]);
    expect((await runMaintenance(app.ctx, later())).strandedRecipients).toBe(1);
  });

  it("a notification whose stored payload cannot be mapped is one recorded failed attempt, never sent, never retried", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Bad payload" });
    const bad = await startReceiver();
    try {
      const webhookId = await registerWebhook(app, acct.apiKey, "delivery", `${bad.url}/hook`);
      const messageId = await insertMessage(app, acct.accountId);
      await notifications?.stop();
      notifications = undefined;
      await logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "ann@example.net" }]);
      const pool = app.ctx.database.pool;
      const { rowCount } = await pool.query(`UPDATE webhook_notifications SET payload = '"not event data"'::jsonb WHERE webhook_id = $1`, [webhookId]);
      expect(rowCount).toBe(1);
      notifications = await startNotifications(app.ctx, { workers: true });
      const record = await until(
        async () => (await listWebhooksOf(app, acct.apiKey)).find((w) => w.WebhookID === String(webhookId))!,
        (w) => w.LastResponseTryCounter === "1",
      );
      expect(record.LastResponseCode).toBe("0");
      const { rows } = await pool.query("SELECT status, attempts FROM webhook_notifications WHERE webhook_id = $1", [webhookId]);
      expect(rows).toEqual([{ status: "failed", attempts: 1 }]);
      const attempts = await pool.query("SELECT error FROM webhook_attempts WHERE webhook_id = $1", [webhookId]);
      expect(attempts.rows.map((r) => r.error)).toEqual([expect.stringMatching(/^Internal error: the notification could not be built \(TypeError\)/)]);
      await sleep(1500);
      expect(bad.requests).toHaveLength(0);
      // The dispatcher goes on: the next good notification is delivered.
      await logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "bob@example.net" }]);
      await bad.waitFor(1);
      await waitFor("the record at 200", async () => {
        const w = (await listWebhooksOf(app, acct.apiKey)).find((x) => x.WebhookID === String(webhookId))!;
        return w.LastResponseCode === "200" ? w : undefined;
      });
    } finally {
      await bad.close();
    }
  });
});
