import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retentionPurge } from "../../lib/maintenance/retention-purge";
import { runMaintenance } from "../support/run-now";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, simpleEmail, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

describe("maintenance: retention purge", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_SANDBOX_RETENTION: "1d" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("purges events past the account's retention, old messages, old sandbox captures and old limit counters", async () => {
    const { apiKey, accountId, apiKeyId } = await createTestAccount(app.ctx);
    const oldId = await sendViaApi(app, apiKey, simpleEmail("old@example.org"));
    const newId = await sendViaApi(app, apiKey, simpleEmail("new@example.org"));
    await waitForEvent(app.ctx, oldId, "delivered");
    await waitForEvent(app.ctx, newId, "delivered");
    const pool = app.ctx.database.pool;
    await pool.query("UPDATE accounts SET retention_days = 7 WHERE id = $1", [accountId]);
    const day = 86_400;
    await pool.query("UPDATE events SET logged_at = logged_at - 8 * $2::bigint WHERE message_id = $1", [oldId, day]);
    await pool.query("UPDATE messages SET created_at = created_at - interval '8 days' WHERE id = $1", [oldId]);
    await pool.query("UPDATE sandbox_messages SET received_at = received_at - interval '3 days' WHERE mailroom_message_id = $1", [oldId]);
    const nowS = Math.floor(Date.now() / 1000);
    await pool.query(
      "INSERT INTO limit_counters (api_key_id, window_kind, window_start, used) VALUES ($1, 'day', $2, 1), ($1, 'day', $3, 1) ON CONFLICT DO NOTHING",
      [apiKeyId, nowS - 3 * day, nowS - (nowS % day)],
    );

    const hour = (t: number) => t - (t % 3600);
    await pool.query(
      "INSERT INTO event_hour_counts (account_id, hour, type, n) VALUES ($1, $2, 'delivered', 5), ($1, $3, 'delivered', 7) ON CONFLICT DO NOTHING",
      [accountId, hour(nowS - 8 * day), hour(nowS - 2 * day)],
    );

    const report = await runMaintenance(app.ctx);
    expect(report.eventSummaries).toBeGreaterThanOrEqual(1);
    expect(report.events).toBeGreaterThanOrEqual(2);
    expect(report.messages).toBeGreaterThanOrEqual(1);
    // The old capture is three days back, before the days kept (it sits in the default partition): deleted as a row.
    // Whole days are dropped too (docs/adr/0040; test/integration/sandbox-partitions.test.ts).
    expect(report.sandboxMessages).toBeGreaterThanOrEqual(1);
    expect(report.limitCounters).toBeGreaterThanOrEqual(1);

    const count = async (sql: string, params: unknown[]) => (await pool.query(sql, params)).rows[0].n as number;
    expect(await count("SELECT count(*)::int AS n FROM events WHERE message_id = $1", [oldId])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM events WHERE message_id = $1", [newId])).toBeGreaterThanOrEqual(2);
    expect(await count("SELECT count(*)::int AS n FROM messages WHERE id = $1", [oldId])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM messages WHERE id = $1", [newId])).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM sandbox_messages WHERE mailroom_message_id = $1", [oldId])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM sandbox_messages WHERE mailroom_message_id = $1", [newId])).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM event_hour_counts WHERE account_id = $1 AND hour = $2", [accountId, hour(nowS - 8 * day)])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM event_hour_counts WHERE account_id = $1 AND hour = $2", [accountId, hour(nowS - 2 * day)])).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM limit_counters WHERE api_key_id = $1 AND window_start = $2", [apiKeyId, nowS - (nowS % day)])).toBe(1);
  });

  it("is scheduled hourly on its own maintenance queue", async () => {
    const schedules = await app.ctx.boss.getSchedules();
    expect(schedules.find((s) => s.name === retentionPurge.name)).toMatchObject({ cron: "19 * * * *" });
  });
});
