import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rollupEventCounts } from "../../lib/domain/events/event-counts";
import { retentionFloor } from "../../lib/domain/events/retention-floor";
import { purgePastRetention } from "../../lib/maintenance/retention-purge";
import { insertEvents } from "../../lib/storage/event-rows";
import { eventAt } from "../support/event-rows";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The retention floor (docs/contract.md §7.5, docs/adr/0515): an account's
 * log begins at the first whole hour inside its retention period. Reads, the
 * purge of rows and the purge of hourly summaries share that boundary, so
 * counts that sum the summaries stay exact across a purge.
 */

const HOUR = 3600;
const DAY = 86_400;

interface EventsBody {
  TotalRecords: number;
  Events: { LoggedAt: number }[];
}

describe("the retention floor", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("hides events before the floor, and the purge removes exactly those rows and their hours' summaries", async () => {
    const { accountId, apiKey } = await createTestAccount(app.ctx, { name: "floor" });
    const pool = app.ctx.database.pool;
    await pool.query("UPDATE accounts SET retention_days = 3 WHERE id = $1", [accountId]);
    // The floor moves on the hour: keep clear of a boundary while the test runs.
    const intoHour = (Math.floor(Date.now() / 1000) - 3 * DAY) % HOUR;
    if (intoHour > HOUR - 20) await new Promise((r) => setTimeout(r, (HOUR - intoHour + 1) * 1000));
    const now = Math.floor(Date.now() / 1000);
    const floor = retentionFloor(now, 3);
    expect(floor % HOUR).toBe(0);
    expect(floor).toBeGreaterThan(now - 3 * DAY);
    const times = [floor - 2 * HOUR, floor - 1, floor, floor + 1, floor + HOUR + 5, now - 600];
    await insertEvents(app.ctx.database, times.map((t) => eventAt(accountId, t)));
    const list = async () => (await (await app.fetch("/api/v1/events?StartDate=0&RetrieveCount=100", { headers: bearer(apiKey) })).json()) as EventsBody;

    // Counted from rows (no summaries yet), then with the summaries of every hour.
    for (const summarised of [false, true]) {
      // The first read starts a roll-up in the background, which holds the account's roll-up lock: the explicit
      // one would give way to it (false), and the summaries would be read before it commits.
      await app.ctx.rollups.settled();
      if (summarised) await rollupEventCounts(app.ctx.database, accountId);
      const body = await list();
      expect(body.TotalRecords, `summarised ${summarised}`).toBe(4);
      expect(body.Events.map((e) => e.LoggedAt).sort((a, b) => a - b)).toEqual([floor, floor + 1, floor + HOUR + 5, now - 600]);
    }
    await app.ctx.rollups.settled();
    const summaries = await pool.query<{ hour: number }>("SELECT hour FROM event_hour_counts WHERE account_id = $1 ORDER BY hour", [accountId]);
    expect(summaries.rows.map((r) => r.hour)).toContain(floor - HOUR);

    await purgePastRetention(app.ctx, new Date(now * 1000));
    const rows = await pool.query<{ logged_at: number }>("SELECT logged_at FROM events WHERE account_id = $1 ORDER BY logged_at", [accountId]);
    expect(rows.rows.map((r) => r.logged_at)).toEqual([floor, floor + 1, floor + HOUR + 5, now - 600]);
    const left = await pool.query<{ hour: number; n: number }>("SELECT hour, sum(n)::int AS n FROM event_hour_counts WHERE account_id = $1 GROUP BY hour ORDER BY hour", [accountId]);
    expect(left.rows[0]).toEqual({ hour: floor, n: 2 });
    expect(left.rows.every((r) => r.hour >= floor)).toBe(true);
    expect((await list()).TotalRecords).toBe(4);

    // Raising the retention later brings back nothing the purge removed, and counts no stale summary.
    await pool.query("UPDATE accounts SET retention_days = 30 WHERE id = $1", [accountId]);
    expect((await list()).TotalRecords).toBe(4);
  });
});
