import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeWebhookHistory } from "../../lib/webhooks/retention";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { registerWebhook } from "./webhooks-helpers";

describe("webhook history retention", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("purges finished notifications past the account's retention with their attempts, never pending ones", async () => {
    const account = await createTestAccount(app.ctx);
    await app.ctx.database.pool.query("UPDATE accounts SET retention_days = 7 WHERE id = $1", [account.accountId]);
    const webhookId = await registerWebhook(app, account.apiKey, "delivery", "https://hooks.example.net/x");
    const insert = async (status: string, completedDaysAgo: number | null) => {
      const { rows } = await app.ctx.database.pool.query<{ id: number }>(
        `INSERT INTO webhook_notifications (webhook_id, account_id, event_id, payload, status, completed_at, created_at)
         VALUES ($1, $2, 0, '{}', $3, CASE WHEN $4::int IS NULL THEN NULL ELSE now() - make_interval(days => $4::int) END, now() - interval '30 days')
         RETURNING id`,
        [webhookId, account.accountId, status, completedDaysAgo],
      );
      await app.ctx.database.pool.query(
        "INSERT INTO webhook_attempts (notification_id, webhook_id, try_number, status_code) VALUES ($1, $2, 1, 200)",
        [rows[0]!.id, webhookId],
      );
      return rows[0]!.id;
    };
    const old = await insert("delivered", 8);
    const oldFailed = await insert("failed", 10);
    const recent = await insert("delivered", 6);
    const pending = await insert("pending", null);
    expect(await purgeWebhookHistory(app.ctx.database)).toEqual({ webhookNotifications: 2, webhookPartitionsDropped: 0, webhookPartitionsWaiting: 0 });
    const { rows } = await app.ctx.database.pool.query<{ id: number }>("SELECT id FROM webhook_notifications ORDER BY id");
    expect(rows.map((r) => r.id)).toEqual([recent, pending]);
    const attempts = await app.ctx.database.pool.query<{ notification_id: number }>("SELECT notification_id FROM webhook_attempts ORDER BY id");
    expect(attempts.rows.map((r) => r.notification_id)).toEqual([recent, pending]);
    expect([old, oldFailed]).not.toContain(recent);
  });
});
