import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maintainEventPartitions, purgeEventsPastRetention } from "../../lib/domain/partitions/event-partitions";
import { openDatabase } from "../../lib/storage/database";
import { insertEvents } from "../../lib/storage/event-rows";
import { DAY, dayPartitionName, listEventPartitions } from "../../lib/storage/event-partitions";
import { migrate } from "../../lib/storage/migrate";
import { eventAt } from "../support/event-rows";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createEmptyTestDatabase } from "../support/test-database";

/**
 * The event log partitioned by day (migrations 0950–0952, docs/adr/0030–0032):
 * partitions made ahead and after a clock jump, retention by dropping them,
 * read-time retention per account, and the upgrade of an unpartitioned table.
 */

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface EventsBody {
  TotalRecords: number;
  Events: { LoggedAt: number }[];
}

describe("events partitioned by day", () => {
  let app: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    pool = app.ctx.database.pool;
  });
  afterAll(async () => {
    await app?.stop();
  });

  const partitionOf = async (table: string, accountId: string) =>
    (await pool.query<{ p: string }>(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE account_id = $1`, [accountId])).rows.map((r) => r.p);

  it("has the days ahead made at start, and after a clock jump of weeks moves the stray rows into their own day", async () => {
    const t = nowSeconds();
    const names = new Set((await listEventPartitions(app.ctx.database)).map((p) => p.name));
    for (let d = 1; d <= 7; d++) expect(names, `day +${d}`).toContain(dayPartitionName(t + d * DAY - ((t + d * DAY) % DAY)));
    expect(names).toContain("events_default");

    // The clock jumps 20 days: no day table yet, the insert still succeeds (into the default partition).
    const { accountId } = await createTestAccount(app.ctx, { name: "jump", domain: "jump.test" });
    const jumped = t + 20 * DAY;
    const [id] = await insertEvents(app.ctx.database, [eventAt(accountId, jumped)]);
    expect(await partitionOf("events", accountId)).toEqual(["events_default"]);

    // The maintenance job at the new time: that day gets its table, the row moves into it, once.
    const report = await maintainEventPartitions(app.ctx.database, new Date(jumped * 1000));
    expect(report.eventPartitionsMade).toBeGreaterThanOrEqual(8);
    expect(await partitionOf("events", accountId)).toEqual([dayPartitionName(jumped - (jumped % DAY))]);
    const { rows } = await pool.query("SELECT id FROM events WHERE account_id = $1", [accountId]);
    expect(rows).toEqual([{ id }]);
    expect((await pool.query("SELECT count(*)::int AS n FROM events_default")).rows[0].n).toBe(0);
    const after = new Set((await listEventPartitions(app.ctx.database)).map((p) => p.name));
    expect(after).toContain(dayPartitionName(jumped - (jumped % DAY) + 7 * DAY));
    // Running again makes nothing.
    expect((await maintainEventPartitions(app.ctx.database, new Date(jumped * 1000))).eventPartitionsMade).toBe(0);
  });

  it("never returns an event past the account's retention through GET /events or /stats", async () => {
    const { accountId, apiKey } = await createTestAccount(app.ctx, { name: "short", domain: "short.test" });
    await pool.query("UPDATE accounts SET retention_days = 3 WHERE id = $1", [accountId]);
    const t = nowSeconds();
    await insertEvents(app.ctx.database, [eventAt(accountId, t - 5 * DAY), eventAt(accountId, t - 4 * DAY), eventAt(accountId, t - DAY)]);
    const res = await app.fetch(`/api/v1/events?StartDate=0&RetrieveCount=100`, { headers: bearer(apiKey) });
    const body = (await res.json()) as EventsBody;
    expect(body.TotalRecords).toBe(1);
    expect(body.Events.map((e) => e.LoggedAt)).toEqual([t - DAY]);
    const byType = (await (await app.fetch(`/api/v1/events?Event=delivered`, { headers: bearer(apiKey) })).json()) as EventsBody;
    expect(byType.TotalRecords).toBe(1);
    const stats = await app.fetch(`/api/v1/stats?StartDate=${t - 6 * DAY}&EndDate=${t}&Interval=day`, { headers: bearer(apiKey) });
    expect(stats.status).toBe(200);
    expect(((await stats.json()) as { Totals: { delivered: number } }).Totals.delivered).toBe(1);
  });

  it("drops day partitions past the longest retention and deletes only shorter retentions' rows", async () => {
    const now = nowSeconds();
    const long = await createTestAccount(app.ctx, { name: "long", domain: "long.test" });
    const short = await createTestAccount(app.ctx, { name: "short2", domain: "short2.test" });
    await pool.query("UPDATE accounts SET retention_days = 5 WHERE id = $1", [short.accountId]);
    await maintainEventPartitions(app.ctx.database, new Date((now - 45 * DAY) * 1000));
    for (let d = 45; d >= 0; d -= 5) await maintainEventPartitions(app.ctx.database, new Date((now - d * DAY) * 1000));
    const ages = [40, 10, 2, 0];
    for (const a of [long.accountId, short.accountId]) await insertEvents(app.ctx.database, ages.map((age) => eventAt(a, now - age * DAY)));
    const oldDay = dayPartitionName(now - 40 * DAY - ((now - 40 * DAY) % DAY));
    expect((await listEventPartitions(app.ctx.database)).map((p) => p.name)).toContain(oldDay);

    const report = await purgeEventsPastRetention(app.ctx.database, now);
    const names = (await listEventPartitions(app.ctx.database)).map((p) => p.name);
    expect(names).not.toContain(oldDay);
    expect(report.eventPartitionsDropped).toBeGreaterThanOrEqual(1);
    const left = async (accountId: string) =>
      (await pool.query<{ logged_at: number }>("SELECT logged_at FROM events WHERE account_id = $1 ORDER BY logged_at", [accountId])).rows.map(
        (r) => (now - r.logged_at) / DAY,
      );
    expect(await left(long.accountId)).toEqual([10, 2, 0]);
    expect(await left(short.accountId)).toEqual([2, 0]);
    // The short account's 10-day-old row is deleted inside its partition (and the 3-day account's rows of the test before).
    expect(report.events).toBe(3);
    // Nothing is left detached, and acceptance still finds a table for now.
    const detached = await pool.query("SELECT relname FROM pg_class WHERE relname LIKE 'events_p%' AND relkind = 'r' AND NOT relispartition");
    expect(detached.rows).toEqual([]);
  });

  it("waits for the next run when the lock on events is not granted within 50 ms", async () => {
    const now = nowSeconds() + 120 * DAY;
    await maintainEventPartitions(app.ctx.database, new Date((now - 40 * DAY) * 1000));
    const holder = await pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE events IN ROW EXCLUSIVE MODE"); // an acceptance in flight
      const started = Date.now();
      const report = await purgeEventsPastRetention(app.ctx.database, now);
      expect(report.eventPartitionsWaiting).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    const report = await purgeEventsPastRetention(app.ctx.database, now);
    expect(report.eventPartitionsWaiting).toBe(0);
    expect(report.eventPartitionsDropped).toBeGreaterThan(0);
  });
});

describe("upgrade of an unpartitioned event log", () => {
  let url: string;

  beforeAll(async () => {
    url = await createEmptyTestDatabase();
  });

  it("keeps every event exactly once, and reads see old and new ones", async () => {
    const database = openDatabase(url, { max: 2 });
    const pool = database.pool;
    const t = nowSeconds();
    const placeholder = randomUUID();
    try {
      await migrate(pool, { before: "0950" });
      expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = 'events'")).rows[0].relkind).toBe("r");
      // 1,000 events past a 30-day retention, 1,000 inside it, and one from a clock three days ahead.
      await pool.query(
        `INSERT INTO events (account_id, message_id, type, logged_at)
         SELECT $1, gen_random_uuid(), 'delivered', $2::bigint - (i % 1000) - CASE WHEN i < 1000 THEN 35 * 86400 ELSE 5 * 86400 END
           FROM generate_series(0, 1999) i`,
        [placeholder, t],
      );
      await insertEvents(database, [eventAt(placeholder, t + 3 * DAY)]);
      const before = (await pool.query("SELECT count(*)::int AS n, sum(id)::text AS s, max(id)::int AS m FROM events")).rows[0];
      expect(before.n).toBe(2001);

      const applied = await migrate(pool);
      expect(applied.slice(0, 3)).toEqual(["0950_events_cutover_check.sql", "0951_events_cutover_validate.sql", "0952_events_partitioned_by_day.sql"]);
      expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = 'events'")).rows[0].relkind).toBe("p");
      const after = (await pool.query("SELECT count(*)::int AS n, count(DISTINCT id)::int AS d, sum(id)::text AS s FROM events")).rows[0];
      expect(after).toEqual({ n: 2001, d: 2001, s: before.s });
      // The event from the future moved the cut-over to the midnight after it.
      const cut = (await pool.query("SELECT legacy_before FROM event_log_layout")).rows[0].legacy_before;
      expect(cut).toBe(t + 3 * DAY - ((t + 3 * DAY) % DAY) + DAY);
      expect((await pool.query("SELECT count(*)::int AS n FROM ONLY events_legacy")).rows[0].n).toBe(2001);

      // New writes go through the new table at once, ids continue the old sequence.
      const [newId] = await insertEvents(database, [eventAt(placeholder, t), eventAt(placeholder, cut + DAY)]);
      expect(newId).toBeGreaterThan(before.m);
      expect((await pool.query("SELECT tableoid::regclass::text AS p FROM events WHERE logged_at = $1", [cut + DAY])).rows).toEqual([
        { p: dayPartitionName(cut + DAY) },
      ]);
    } finally {
      await database.close();
    }

    // The upgraded database served: GET /events sees old and new rows inside retention.
    const app = await startTestApp({ DATABASE_URL: url, MAILROOM_WORKERS: "off" });
    try {
      const { accountId, apiKey } = await createTestAccount(app.ctx);
      await app.ctx.database.pool.query("UPDATE events SET account_id = $1 WHERE account_id = $2", [accountId, placeholder]);
      const body = (await (await app.fetch(`/api/v1/events?StartDate=0&EndDate=${t}`, { headers: bearer(apiKey) })).json()) as EventsBody;
      expect(body.TotalRecords).toBe(1001); // 1,000 five days old and the new one; the 35-day-old ones are past retention
      // Retention deletes the expired rows inside the legacy partition, exactly those.
      const report = await purgeEventsPastRetention(app.ctx.database, t);
      expect(report.events).toBe(1000);
      expect((await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM events")).rows[0].n).toBe(1003);
    } finally {
      await app.stop();
    }
  });
});
