import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { insertMessage, logTestEvents, registerWebhook, sleep, startReceiver, until, type Receiver } from "./webhooks-helpers";

/**
 * DELETE /webhooks/{id} while the dispatcher records an attempt of one of its
 * notifications. The recording transaction updates the notification, then
 * inserts into webhook_attempts, whose foreign key share-locks the webhook.
 * A DELETE that locked the webhook first and then cascaded to the
 * notification deadlocked with it, and PostgreSQL aborted one of the two:
 * the API answered 500, or the attempt was lost.
 */
describe("deleting a webhook while an attempt of its notification is being recorded", () => {
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    // One attempt, then a retry an hour away: the notification stays pending and no dispatcher touches it again.
    app = await startTestApp({ MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1h" });
    receiver = await startReceiver(() => ({ status: 500 }));
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it("answers 200, lets the recording commit, and leaves no notification or attempt behind", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Delete race" });
    const webhookId = await registerWebhook(app, acct.apiKey, "delivery", `${receiver.url}/hook`);
    const messageId = await insertMessage(app, acct.accountId);
    await logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "ann@example.net" }]);
    await receiver.waitFor(1);
    const pool = app.ctx.database.pool;
    const { rows } = await until(
      () => pool.query<{ id: string; attempts: number }>("SELECT id, attempts FROM webhook_notifications WHERE webhook_id = $1", [webhookId]),
      (r) => r.rows[0]?.attempts === 1,
    );
    const notificationId = rows[0]!.id;

    // The recording transaction, step by step, as recordAttemptRows runs it.
    const recorder = await pool.connect();
    try {
      await recorder.query("BEGIN");
      await recorder.query("UPDATE webhook_notifications SET attempts = 2 WHERE id = $1", [notificationId]);
      const deletion = app.fetch(`/api/v1/webhooks/${webhookId}`, { method: "DELETE", headers: bearer(acct.apiKey) });
      // The DELETE is under way and waits for the notification's lock.
      await until(
        async () => (await pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n,
        (n) => n > 0,
      );
      const recorded = recorder
        .query("INSERT INTO webhook_attempts (notification_id, webhook_id, try_number, status_code) VALUES ($1, $2, 2, 500)", [notificationId, webhookId])
        .then(() => recorder.query("COMMIT"))
        .then(() => "committed");
      const [res, outcome] = await Promise.all([deletion, recorded.catch((err: Error) => `failed: ${err.message}`)]);
      expect(outcome).toBe("committed");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
    } finally {
      recorder.release();
    }
    const left = await pool.query(
      `SELECT (SELECT count(*)::int FROM webhooks WHERE id = $1) AS hooks,
              (SELECT count(*)::int FROM webhook_notifications WHERE webhook_id = $1) AS notifications,
              (SELECT count(*)::int FROM webhook_attempts WHERE webhook_id = $1) AS attempts`,
      [webhookId],
    );
    expect(left.rows[0]).toEqual({ hooks: 0, notifications: 0, attempts: 0 });
  });

  it("retries the DELETE that PostgreSQL aborts in the deadlock left: a notification made while the DELETE runs, then an attempt recorded", async () => {
    const acct = await createTestAccount(app.ctx, { name: "Delete deadlock" });
    const webhookId = await registerWebhook(app, acct.apiKey, "delivery", `${receiver.url}/hook`);
    const messageId = await insertMessage(app, acct.accountId);
    await logTestEvents(app, [{ accountId: acct.accountId, messageId, type: "delivered", recipient: "bob@example.net" }]);
    const pool = app.ctx.database.pool;
    const { rows } = await until(
      () => pool.query<{ id: string; attempts: number }>("SELECT id, attempts FROM webhook_notifications WHERE webhook_id = $1", [webhookId]),
      (r) => r.rows[0]?.attempts === 1,
    );
    const waiting = async () =>
      (await pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n;

    // A new notification of the webhook, not committed: its foreign key share-locks the webhook, and the DELETE,
    // which locked the existing notification, waits for that. Then this transaction records an attempt of the
    // existing notification and waits for the DELETE: a cycle. The DELETE waited first, so its deadlock check
    // runs first and aborts it; deleteWebhook runs it again once this commits.
    const other = await pool.connect();
    try {
      await other.query("BEGIN");
      await other.query(
        "INSERT INTO webhook_notifications (webhook_id, account_id, event_id, payload, next_attempt_at) VALUES ($1, $2, 0, '{}', now() + interval '1 day')",
        [webhookId, acct.accountId],
      );
      const deletion = app.fetch(`/api/v1/webhooks/${webhookId}`, { method: "DELETE", headers: bearer(acct.apiKey) });
      await until(waiting, (n) => n > 0);
      // Well apart, so that the DELETE's check (deadlock_timeout, 1 s, after it began to wait) comes first on a loaded machine too.
      await sleep(300);
      const recorded = other
        .query("UPDATE webhook_notifications SET attempts = 2 WHERE id = $1", [rows[0]!.id])
        .then(() => other.query("COMMIT"))
        .then(() => "committed");
      const [res, outcome] = await Promise.all([deletion, recorded.catch((err: Error) => `failed: ${err.message}`)]);
      // Both went through: the deadlock (there must be one) aborted the DELETE's first run, not this transaction.
      expect(outcome).toBe("committed");
      expect(res.status).toBe(200);
    } finally {
      other.release();
    }
    const left = await pool.query(
      "SELECT (SELECT count(*)::int FROM webhooks WHERE id = $1) AS hooks, (SELECT count(*)::int FROM webhook_notifications WHERE webhook_id = $1) AS notifications",
      [webhookId],
    );
    expect(left.rows[0]).toEqual({ hooks: 0, notifications: 0 });
  });
});
