import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../lib/contract/events";
import { rollupEventCounts, type RollupScheduler } from "../../lib/domain/events/event-counts";
import { eventStats } from "../../lib/domain/events/event-stats";
import type { Database } from "../../lib/storage/database";
import { addHourCounts, ensureRollupState, HOUR, updateRolledUntil } from "../../lib/storage/event-count-rows";
import { RETAINED_FROM } from "../../lib/storage/retention-sql";
import { withTransaction } from "../../lib/storage/transaction";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * GET /stats reads the summary state (rolled_until, docs/adr/0101) and the counts it
 * implies in one snapshot: a roll-up or a late event's undo that commits just before
 * the counts are read changes nothing about their exactness. The other write is
 * made, deterministically, right before the first statement of the read that reads
 * event_hour_counts.
 */
describe("GET /stats counts from one snapshot of the summaries", () => {
  let app: TestApp;
  let accountId: string;
  let now: number;
  let rolledUntil: number;
  const MESSAGE = "33333333-3333-4333-8333-333333333333";
  const noRollups: RollupScheduler = { schedule() {}, settled: async () => {} };

  const insert = (rows: [string, number][]) =>
    app.ctx.database.pool.query(
      `INSERT INTO events (account_id, message_id, type, logged_at, recipient)
       SELECT $1, $2, t, at, 'x@example.net' FROM unnest($3::text[], $4::bigint[]) AS r(t, at)`,
      [accountId, MESSAGE, rows.map((r) => r[0]), rows.map((r) => r[1])],
    );
  const direct = async (type: string, from: number, to: number) =>
    (
      await app.ctx.database.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND logged_at >= ${RETAINED_FROM} AND type = $2 AND logged_at BETWEEN $3 AND $4`,
        [accountId, type, from, to],
      )
    ).rows[0]!.n;

  /** The database of the read, with `meanwhile` run (once) before its first statement that reads summaries. */
  const interleaved = (meanwhile: () => Promise<void>): { database: Database; ran: () => boolean } => {
    const db = app.ctx.database;
    let ran = false;
    const database: Database = {
      url: db.url,
      pool: db.pool,
      close: () => db.close(),
      get db() {
        return db.db;
      },
      async query(text: Parameters<Database["query"]>[0], values?: unknown[]) {
        if (!ran && (typeof text === "string" ? text : text.text).includes("event_hour_counts")) {
          ran = true;
          await meanwhile();
        }
        return db.query(text, values);
      },
    } as Database;
    return { database, ran: () => ran };
  };

  async function expectExact(database: Database) {
    const start = now - 2 * 86_400;
    const stats = await eventStats({ database, rollups: noRollups }, accountId, { startDate: start, endDate: now, interval: "hour" });
    for (const t of EVENT_TYPES) expect(stats.Totals[t], t).toBe(await direct(t, stats.StartDate, now));
  }

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    accountId = (await createTestAccount(app.ctx)).accountId;
    now = (await app.ctx.database.pool.query<{ now: number }>("SELECT extract(epoch FROM now())::bigint AS now")).rows[0]!.now;
  });
  afterAll(async () => {
    await app?.stop();
  });

  beforeEach(async () => {
    // Events over the last day, some in the minutes just after `rolledUntil`, the middle of the hour before last.
    rolledUntil = now - (now % HOUR) - HOUR - 1800;
    await app.ctx.database.pool.query("DELETE FROM events WHERE account_id = $1", [accountId]);
    await insert(Array.from({ length: 200 }, (_, i) => [i % 2 ? "delivered" : "opened", now - 86_400 + i * 431] as [string, number]));
    await insert(Array.from({ length: 20 }, (_, i) => ["delivered", rolledUntil + 5 + i * 7] as [string, number]));
    // Summarised up to rolledUntil, a minute boundary inside an hour, as a roll-up leaves it (docs/adr/0101).
    await app.ctx.database.pool.query("DELETE FROM event_hour_counts WHERE account_id = $1", [accountId]);
    await ensureRollupState(app.ctx.database, accountId);
    await withTransaction(app.ctx.database, async (tx) => {
      await addHourCounts(tx, accountId, 0, rolledUntil);
      await updateRolledUntil(tx, accountId, rolledUntil);
    });
    await expectExact(app.ctx.database);
  });

  it("stays exact when a roll-up commits during the read", async () => {
    const { database, ran } = interleaved(async () => {
      expect(await rollupEventCounts(app.ctx.database, accountId)).toBe(true);
    });
    await expectExact(database);
    expect(ran()).toBe(true);
  });

  it("stays exact when a late event undoes the summaries during the read", async () => {
    const { database, ran } = interleaved(async () => {
      await insert([["delivered", rolledUntil - 1200]]);
    });
    await expectExact(database);
    expect(ran()).toBe(true);
  });
});
