import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maintainDayPartitions } from "../../lib/domain/partitions/day-partitions";
import { openDatabase } from "../../lib/storage/database";
import { DAY, dayTableName, firstIdOfDay, listDayPartitions } from "../../lib/storage/day-partitions";
import { migrate } from "../../lib/storage/migrate";
import { purgeWebhookHistory } from "../../lib/webhooks/retention";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createEmptyTestDatabase } from "../support/test-database";
import { registerWebhook } from "./webhooks-helpers";

/**
 * Webhook notifications partitioned by day on their day-prefixed id
 * (migrations 0990–0993, docs/adr/0042): new ids carry their day, statements
 * by id are pruned to that day's table, a day goes whole once nothing in it
 * may stay (with its attempts), and the upgrade keeps every row, key and attempt.
 */

const TABLE = "webhook_notifications";
const nowSeconds = () => Math.floor(Date.now() / 1000);
const dayOf = (t: number) => t - (t % DAY);

/** One notification (explicit id when given) with one attempt; its id as a string. */
async function notification(
  q: pg.Pool,
  o: { webhookId: string | number; accountId: string; id?: string; status?: string; completedAt?: number | null },
): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO webhook_notifications (id, webhook_id, account_id, event_id, payload, status, completed_at)
     VALUES (COALESCE($1::bigint, ((floor(extract(epoch FROM now()) / 86400)::bigint << 32) | (nextval('webhook_notifications_id_seq') & 4294967295))),
             $2, $3, 0, '{}', $4, to_timestamp($5)) RETURNING id::text`,
    [o.id ?? null, o.webhookId, o.accountId, o.status ?? "delivered", o.completedAt ?? null],
  );
  await q.query("INSERT INTO webhook_attempts (notification_id, webhook_id, try_number, status_code) VALUES ($1, $2, 1, 200)", [rows[0]!.id, o.webhookId]);
  return rows[0]!.id;
}

const attemptsOf = async (q: pg.Pool, ids: string[]) =>
  (await q.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_attempts WHERE notification_id = ANY($1::bigint[])", [ids])).rows[0]!.n;

describe("webhook notifications partitioned by day", () => {
  let app: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    pool = app.ctx.database.pool;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("gives a new notification an id of its day, files it under that day, and prunes statements by id to that table", async () => {
    const t = nowSeconds();
    const { accountId, apiKey } = await createTestAccount(app.ctx, { name: "ids", domain: "ids.test" });
    const webhookId = await registerWebhook(app, apiKey, "delivery", "https://hooks.example.net/ids");
    const id = await notification(pool, { webhookId, accountId, status: "pending" });
    expect(BigInt(id) >> 32n).toBe(BigInt(Math.floor(t / DAY)));
    expect(Number(id)).toBeLessThan(Number.MAX_SAFE_INTEGER); // a JavaScript number, as the API and the jobs carry it
    const today = dayTableName(TABLE, dayOf(t));
    expect((await pool.query("SELECT tableoid::regclass::text AS p FROM webhook_notifications WHERE id = $1", [id])).rows).toEqual([{ p: today }]);

    const client = await pool.connect();
    try {
      await client.query("SET plan_cache_mode = force_generic_plan"); // as a prepared statement runs after its fifth use
      // The dispatcher's statements by an array of ids carry its lowest and highest (an array alone prunes nothing).
      await client.query("PREPARE claim (bigint[], bigint, bigint) AS UPDATE webhook_notifications SET attempts = attempts WHERE id = ANY ($1) AND id >= $2 AND id <= $3");
      const [lit] = [client.escapeLiteral(id)];
      const { rows } = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE claim(ARRAY[${lit}]::bigint[], ${lit}, ${lit})`,
      );
      // The tables scanned (PostgreSQL 15 still lists every partition as an "Update on" target; the scans are what pruning removes).
      const scanLines = rows.map((r) => r["QUERY PLAN"]).filter((line) => / Scan /.test(line));
      const tables = new Set(scanLines.flatMap((line) => line.match(/webhook_notifications_(p\d{8}|default|legacy)\b/g) ?? []));
      expect([...tables]).toEqual([today]);
    } finally {
      await client.query("ROLLBACK").catch(() => {});
      await client.query("DEALLOCATE claim"); // only ours: the pool's client keeps the app's named statements
      client.release();
    }
  });

  it("drops a day once nothing in it may stay, with its attempts; keeps a day with a pending one or one inside the longest retention", async () => {
    const now = nowSeconds() + 300 * DAY; // days of their own, away from the other cases
    await maintainDayPartitions(app.ctx.database, new Date((now - 45 * DAY) * 1000));
    await maintainDayPartitions(app.ctx.database, new Date((now - 35 * DAY) * 1000));
    const { accountId, apiKey } = await createTestAccount(app.ctx, { name: "days", domain: "days.test" });
    const webhookId = await registerWebhook(app, apiKey, "delivery", "https://hooks.example.net/days");
    const idOn = (daysAgo: number, k: number) => (BigInt(firstIdOfDay(dayOf(now - daysAgo * DAY))) + BigInt(k)).toString();
    // Day A, 44 days ago: everything finished 40 days ago, past the longest retention (30 days).
    const a = [await notification(pool, { webhookId, accountId, id: idOn(44, 1), completedAt: now - 40 * DAY }), await notification(pool, { webhookId, accountId, id: idOn(44, 2), status: "failed", completedAt: now - 41 * DAY })];
    // Day B, 43 days ago: one still pending (a webhook re-enabled, or retrying).
    const b = [await notification(pool, { webhookId, accountId, id: idOn(43, 1), completedAt: now - 40 * DAY }), await notification(pool, { webhookId, accountId, id: idOn(43, 2), status: "pending" })];
    // Day C, 42 days ago: one finished 20 days ago (its last retry came late), inside the retention.
    const c = [await notification(pool, { webhookId, accountId, id: idOn(42, 1), completedAt: now - 20 * DAY })];
    const names = async () => (await listDayPartitions(app.ctx.database, TABLE)).map((p) => p.name);
    const [dayA, dayB, dayC] = [44, 43, 42].map((d) => dayTableName(TABLE, dayOf(now - d * DAY)));
    expect(await names()).toEqual(expect.arrayContaining([dayA!, dayB!, dayC!]));

    const report = await purgeWebhookHistory(app.ctx.database, new Date(now * 1000));
    expect(report.webhookPartitionsWaiting).toBe(0);
    expect(report.webhookPartitionsDropped).toBeGreaterThanOrEqual(1);
    const left = await names();
    expect(left).not.toContain(dayA);
    expect(left).toEqual(expect.arrayContaining([dayB!, dayC!]));
    expect(await attemptsOf(pool, a)).toBe(0);
    // Inside the days that stay, the rows past the account's retention go one by one with their attempts (ON DELETE CASCADE).
    expect(report.webhookNotifications).toBe(1);
    const kept = (await pool.query<{ id: string }>("SELECT id::text FROM webhook_notifications WHERE id = ANY($1::bigint[]) ORDER BY id", [[...a, ...b, ...c]])).rows;
    expect(kept.map((r) => r.id)).toEqual([b[1], c[0]]);
    expect(await attemptsOf(pool, [b[1]!, c[0]!])).toBe(2);
    expect(await attemptsOf(pool, [b[0]!])).toBe(0);
  });

  it("drops a day table left detached by a run whose DROP failed", async () => {
    await maintainDayPartitions(app.ctx.database); // the days around now again (the case above dropped them as past)
    const day = dayTableName(TABLE, dayOf(nowSeconds() + 7 * DAY));
    await pool.query(`ALTER TABLE webhook_notifications DETACH PARTITION ${day}`);
    const report = await purgeWebhookHistory(app.ctx.database);
    expect(report.webhookPartitionsDropped).toBeGreaterThanOrEqual(1);
    expect((await pool.query("SELECT to_regclass($1) AS t", [day])).rows[0].t).toBeNull();
  });
});

describe("upgrade of unpartitioned webhook notifications", () => {
  let url: string;

  beforeAll(async () => {
    url = await createEmptyTestDatabase();
  });

  it("keeps every notification under its id, its attempts and keys; new ids carry their day; the legacy table goes once finished and past retention", async () => {
    const database = openDatabase(url, { max: 2 });
    const pool = database.pool;
    const t = nowSeconds();
    try {
      await migrate(pool, { before: "0990" });
      const accountId = (await pool.query<{ id: string }>("INSERT INTO accounts (name, plan, webhook_signing_key) VALUES ('up', 'unlimited', 'k') RETURNING id")).rows[0]!.id;
      const webhookId = (await pool.query<{ id: string }>("INSERT INTO webhooks (account_id, url, event) VALUES ($1, 'https://hooks.example.net/up', 'delivery') RETURNING id", [accountId])).rows[0]!.id;
      const old: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { rows } = await pool.query<{ id: string }>(
          "INSERT INTO webhook_notifications (webhook_id, account_id, event_id, payload, status, completed_at) VALUES ($1, $2, 0, '{}', 'delivered', now()) RETURNING id::text",
          [webhookId, accountId],
        );
        await pool.query("INSERT INTO webhook_attempts (notification_id, webhook_id, try_number, status_code) VALUES ($1, $2, 1, 200)", [rows[0]!.id, webhookId]);
        old.push(rows[0]!.id);
      }

      const applied = await migrate(pool);
      expect(applied.slice(0, 4)).toEqual([
        "0990_webhook_notifications_cutover_check.sql",
        "0991_webhook_notifications_cutover_validate.sql",
        "0992_webhook_notifications_partitioned_by_day.sql",
        "0993_webhook_attempts_key_validate.sql",
      ]);
      expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = 'webhook_notifications'")).rows[0].relkind).toBe("p");
      expect((await pool.query<{ id: string }>("SELECT id::text FROM webhook_notifications ORDER BY id")).rows.map((r) => r.id)).toEqual(old);
      expect(await attemptsOf(pool, old)).toBe(3);
      // The legacy table's key and indexes were adopted; the attempts' key names the new table and is validated.
      const indexes = await pool.query<{ n: string }>("SELECT indexname AS n FROM pg_indexes WHERE tablename = 'webhook_notifications_legacy' ORDER BY 1");
      expect(indexes.rows.map((r) => r.n)).toEqual([
        "webhook_notifications_legacy_completed",
        "webhook_notifications_legacy_pending",
        "webhook_notifications_legacy_pkey",
        "webhook_notifications_legacy_webhook",
        "webhook_notifications_legacy_webhook_status",
      ]);
      const fk = await pool.query("SELECT confrelid::regclass::text AS t, convalidated AS v FROM pg_constraint WHERE conname = 'webhook_attempts_notification_id_fkey'");
      expect(fk.rows).toEqual([{ t: "webhook_notifications", v: true }]);
      await expect(
        pool.query("INSERT INTO webhook_attempts (notification_id, webhook_id, try_number) VALUES (424242424242, $1, 1)", [webhookId]),
      ).rejects.toMatchObject({ code: "23503" });

      // A new notification's id carries today; until the cut-over day it is filed with the legacy rows.
      const cut = Number((await pool.query("SELECT legacy_before FROM day_partition_layouts WHERE parent = $1", [TABLE])).rows[0].legacy_before);
      expect(cut).toBe(dayOf(t + 3600) + DAY);
      const fresh = await notification(pool, { webhookId, accountId });
      expect(BigInt(fresh) >> 32n).toBe(BigInt(Math.floor(Date.now() / 1000 / DAY)));
      expect((await pool.query("SELECT tableoid::regclass::text AS p FROM webhook_notifications WHERE id = $1", [fresh])).rows).toEqual([{ p: "webhook_notifications_legacy" }]);
      const later = await notification(pool, { webhookId, accountId, id: (BigInt(firstIdOfDay(cut + DAY)) + 7n).toString() });
      expect((await pool.query("SELECT tableoid::regclass::text AS p FROM webhook_notifications WHERE id = $1", [later])).rows).toEqual([{ p: dayTableName(TABLE, cut + DAY) }]);

      // Deleting the webhook still takes its notifications and their attempts, in every table.
      // (Checked on a copy of the state: a second webhook with one row in each table.)
      const other = (await pool.query<{ id: string }>("INSERT INTO webhooks (account_id, url, event) VALUES ($1, 'https://hooks.example.net/other', 'delivery') RETURNING id", [accountId])).rows[0]!.id;
      const otherRows = [await notification(pool, { webhookId: other, accountId }), await notification(pool, { webhookId: other, accountId, id: (BigInt(firstIdOfDay(cut + DAY)) + 8n).toString() })];
      await pool.query("DELETE FROM webhooks WHERE id = $1", [other]);
      expect((await pool.query("SELECT count(*)::int AS n FROM webhook_notifications WHERE id = ANY($1::bigint[])", [otherRows])).rows[0].n).toBe(0);
      expect(await attemptsOf(pool, otherRows)).toBe(0);

      // Past the longest retention (30 days) after the cut-over, the legacy table goes whole, with its attempts.
      const report = await purgeWebhookHistory(database, new Date((cut + 31 * DAY) * 1000));
      expect(report.webhookPartitionsDropped).toBeGreaterThanOrEqual(1);
      expect((await listDayPartitions(database, TABLE)).map((p) => p.name)).not.toContain("webhook_notifications_legacy");
      expect(await attemptsOf(pool, [...old, fresh])).toBe(0);
    } finally {
      await database.close();
    }
  });
});
