import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rollupEventCounts, rollupTarget } from "../../lib/domain/events/event-counts";
import { RETAINED_FROM } from "../../lib/storage/retention-sql";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * TotalRecords and GET /stats stay exact when hourly summaries
 * (migration 0100) replace counting rows: before and after a roll-up, after
 * a late event lands in a summarised hour, and after old events are purged
 * (rows past the account's retention count nowhere, purged or not: docs/adr/0031).
 */
describe("exact counts with hourly summaries", () => {
  let app: TestApp;
  let key: string;
  let accountId: string;
  const now = Math.floor(Date.now() / 1000);
  const DAY = 86_400;
  const TYPES = ["accepted", "delivered", "opened", "failed"];
  const MESSAGE = "22222222-2222-4222-8222-222222222222";

  const insert = (rows: [string, number][]) =>
    app.ctx.database.pool.query(
      `INSERT INTO events (account_id, message_id, type, logged_at, recipient)
       SELECT $1, $2, t, at, 'x@example.net' FROM unnest($3::text[], $4::bigint[]) AS r(t, at)`,
      [accountId, MESSAGE, rows.map((r) => r[0]), rows.map((r) => r[1])],
    );

  const direct = async (where: string, params: unknown[]) =>
    (await app.ctx.database.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND logged_at >= ${RETAINED_FROM} ${where}`, [accountId, ...params])).rows[0]!.n;

  const total = async (query: string) => {
    const res = await app.fetch(`/api/v1/events?RetrieveCount=1&${query}`, { headers: bearer(key) });
    return ((await res.json()) as { TotalRecords: number }).TotalRecords;
  };

  const probes: [string, string, unknown[]][] = [
    ["", "", []],
    ["Event=delivered", "AND type = 'delivered'", []],
    [`StartDate=${now - 5 * DAY + 17}`, "AND logged_at >= $2", [now - 5 * DAY + 17]],
    [`EndDate=${now - 2 * DAY - 1234}`, "AND logged_at <= $2", [now - 2 * DAY - 1234]],
    [`StartDate=${now - 8 * DAY + 1}&EndDate=${now - 1 * DAY + 7}&Event=opened`, "AND logged_at BETWEEN $2 AND $3 AND type = 'opened'", [now - 8 * DAY + 1, now - DAY + 7]],
    [`StartDate=${now - 3600}`, "AND logged_at >= $2", [now - 3600]],
  ];

  async function expectExact() {
    for (const [query, where, params] of probes) expect(await total(query), query).toBe(await direct(where, params));
    for (const interval of ["hour", "day"]) {
      const start = now - 9 * DAY + 123;
      const res = await app.fetch(`/api/v1/stats?StartDate=${start}&EndDate=${now}&Interval=${interval}`, { headers: bearer(key) });
      const body = (await res.json()) as { StartDate: number; Totals: Record<string, number>; Buckets: { Start: number; Counts: Record<string, number> }[] };
      for (const t of TYPES) expect(body.Totals[t], `${interval} ${t}`).toBe(await direct("AND type = $2 AND logged_at BETWEEN $3 AND $4", [t, body.StartDate, now]));
      const size = interval === "hour" ? 3600 : DAY;
      const probe = body.Buckets[Math.floor(body.Buckets.length / 2)]!;
      expect(probe.Counts.delivered).toBe(await direct("AND type = 'delivered' AND logged_at >= $2 AND logged_at < $3", [probe.Start, probe.Start + size]));
    }
  }

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    const a = await createTestAccount(app.ctx);
    key = a.apiKey;
    accountId = a.accountId;
    // 2,000 events over the last 10 days, the newest minutes included.
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    await insert(Array.from({ length: 2000 }, () => [TYPES[Math.floor(rand() * 4)]!, now - Math.floor(rand() * 10 * DAY)] as [string, number]));
  });
  afterAll(async () => {
    await app.ctx.rollups.settled();
    await app?.stop();
  });

  it("counts exactly before any roll-up", async () => {
    await app.ctx.database.pool.query("DELETE FROM event_hour_counts; DELETE FROM event_rollup_state");
    await expectExact();
  });

  it("rolls up in the background after a read and stays exact", async () => {
    // The database's clock, as the roll-up reads it (lib/storage/event-count-rows.ts lockRollupState).
    const dbNow = async () => (await app.ctx.database.pool.query<{ t: number }>("SELECT extract(epoch FROM now())::bigint AS t")).rows[0]!.t;
    await app.ctx.rollups.settled(); // the previous case's reads may have started one
    const readAt = await dbNow();
    await total("");
    await app.ctx.rollups.settled();
    const settledAt = await dbNow();
    // Caught up to the roll-up target of a time between the read and now. Not "nothing left":
    // the target is a minute boundary five minutes back, so it moves on every minute.
    const { rows } = await app.ctx.database.pool.query("SELECT rolled_until FROM event_rollup_state WHERE account_id = $1", [accountId]);
    expect(rows[0]?.rolled_until).toBeGreaterThanOrEqual(rollupTarget(readAt));
    expect(rows[0]?.rolled_until).toBeLessThanOrEqual(rollupTarget(settledAt));
    const summaries = await app.ctx.database.pool.query("SELECT count(*)::int AS n, sum(n)::int AS events FROM event_hour_counts WHERE account_id = $1", [accountId]);
    expect(summaries.rows[0].n).toBeGreaterThan(100);
    expect(summaries.rows[0].events).toBeGreaterThan(1500);
    await expectExact();
  });

  it("stays exact when a late event lands in a summarised hour", async () => {
    const before = await total("Event=failed");
    await insert([["failed", now - 4 * DAY]]);
    expect(await total("Event=failed")).toBe(before + 1);
    await expectExact();
    await total("");
    await app.ctx.rollups.settled();
    await expectExact();
  });

  it("stays exact with a summary that ends inside the current hour, and after late events there", async () => {
    const state = async () =>
      (await app.ctx.database.pool.query<{ ru: number }>("SELECT rolled_until AS ru FROM event_rollup_state WHERE account_id = $1", [accountId])).rows[0]!.ru;
    // Minutes ago, on both sides of the five-minute horizon.
    await insert([["delivered", now - 1500], ["opened", now - 700], ["opened", now - 400], ["accepted", now - 120]]);
    await app.ctx.rollups.settled();
    await rollupEventCounts(app.ctx.database, accountId);
    const ru = await state();
    expect(ru % 60).toBe(0);
    expect(ru).toBeGreaterThan(now - 400); // summarised to the minute, not to the hour
    await expectExact();
    // Newer than the horizon: counted from rows, next to the partial summary.
    await insert([["delivered", now - 30]]);
    await expectExact();
    // Late: older than the horizon, inside the summarised span; it undoes the summary from its hour on.
    await insert([["failed", now - 600]]);
    expect(await state()).toBeLessThanOrEqual(now - 600);
    await expectExact();
    // Summarising again adds the re-counted span to what is left, and stays exact.
    await rollupEventCounts(app.ctx.database, accountId);
    expect(await state()).toBeGreaterThan(now - 400);
    await expectExact();
  });

  it("stays exact while and after the retention purge removes old events", async () => {
    await app.ctx.database.pool.query("UPDATE accounts SET retention_days = 6 WHERE id = $1", [accountId]);
    // Mid-purge: some expired rows deleted, others not yet (the purge works in batches).
    await app.ctx.database.pool.query("DELETE FROM events WHERE account_id = $1 AND logged_at < $2 AND id % 2 = 0", [accountId, now - 6 * DAY]);
    await expectExact();
    await app.ctx.database.pool.query("DELETE FROM events WHERE account_id = $1 AND logged_at < $2", [accountId, now - 6 * DAY]);
    await expectExact();
  });
});
