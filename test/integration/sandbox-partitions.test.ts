import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maintainDayPartitions, purgeDayPartitionedBefore } from "../../lib/domain/partitions/day-partitions";
import { openDatabase, type Database } from "../../lib/storage/database";
import { DAY, dayTableName, listDayPartitions } from "../../lib/storage/day-partitions";
import { migrate } from "../../lib/storage/migrate";
import { insertSandboxCaptures, sandboxRowWithRaw, sandboxRowsPage } from "../../lib/storage/sandbox-rows";
import { startTestApp, type TestApp } from "../support/test-app";
import { createEmptyTestDatabase } from "../support/test-database";

/**
 * Sandbox captures partitioned by day (migrations 0970–0972, docs/adr/0040):
 * day tables made ahead and after a clock jump, retention by dropping whole
 * days, a drop that waits for a busy table, and the upgrade of an unpartitioned table.
 */

const TABLE = "sandbox_messages";
const nowSeconds = () => Math.floor(Date.now() / 1000);
const dayOf = (t: number) => t - (t % DAY);

/** Stores one capture received at `t` (Unix seconds); its id. */
async function captureAt(q: pg.Pool | pg.PoolClient, t: number, subject: string): Promise<number> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO sandbox_messages (received_at, rcpt_to, subject, size, raw) VALUES (to_timestamp($1), ARRAY['to@example.org'], $2, 3, 'abc') RETURNING id`,
    [t, subject],
  );
  return Number(rows[0]!.id);
}

async function partitionOf(pool: pg.Pool, id: number): Promise<string[]> {
  const { rows } = await pool.query<{ p: string }>("SELECT tableoid::regclass::text AS p FROM sandbox_messages WHERE id = $1", [id]);
  return rows.map((r) => r.p);
}

const names = async (database: Database) => (await listDayPartitions(database, TABLE)).map((p) => p.name);

describe("sandbox captures partitioned by day", () => {
  let app: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    pool = app.ctx.database.pool;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("has the days ahead at start, and after a clock jump moves a stray capture into its own day, readable by id throughout", async () => {
    const t = nowSeconds();
    const made = new Set(await names(app.ctx.database));
    for (let d = -2; d <= 7; d++) expect(made, `day ${d}`).toContain(dayTableName(TABLE, dayOf(t + d * DAY)));
    expect(made).toContain("sandbox_messages_default");
    expect(made).not.toContain("sandbox_messages_legacy"); // a new installation has nothing before the cut-over

    // A capture of today goes to today's table, through the sandbox MX's own insert.
    const [today] = await insertSandboxCaptures(app.ctx.database, [
      { mail_from: "a@b.test", rcpt_to: ["c@d.test"], subject: "today", message_id_header: "", recipient_id: 0, size: 1, raw: "YQ==" },
    ]);
    expect(await partitionOf(pool, today!)).toEqual([dayTableName(TABLE, dayOf(t))]);

    // The clock jumps 20 days: no day table yet, the insert still succeeds (into the default partition).
    const jumped = t + 20 * DAY;
    const id = await captureAt(pool, jumped, "jumped");
    expect(await partitionOf(pool, id)).toEqual(["sandbox_messages_default"]);
    expect((await sandboxRowWithRaw(app.ctx.database, id))?.subject).toBe("jumped");

    const report = await maintainDayPartitions(app.ctx.database, new Date(jumped * 1000));
    expect(report.dayPartitionsMade).toBeGreaterThanOrEqual(10);
    expect(report.dayPartitionDaysMovedFromDefault).toBe(0); // made ahead of the jumped day: its row moved with its table
    expect(await partitionOf(pool, id)).toEqual([dayTableName(TABLE, dayOf(jumped))]);
    expect((await sandboxRowWithRaw(app.ctx.database, id))?.raw.toString()).toBe("abc");
    expect((await pool.query("SELECT count(*)::int AS n FROM sandbox_messages_default")).rows[0].n).toBe(0);

    // A capture of a day far from any made is moved by the stray-day pass, once.
    const far = t + 90 * DAY;
    const farId = await captureAt(pool, far, "far");
    const again = await maintainDayPartitions(app.ctx.database, new Date(jumped * 1000));
    expect(again).toEqual({ dayPartitionsMade: 1, dayPartitionDaysMovedFromDefault: 1 });
    expect(await partitionOf(pool, farId)).toEqual([dayTableName(TABLE, dayOf(far))]);
    expect((await maintainDayPartitions(app.ctx.database, new Date(jumped * 1000))).dayPartitionsMade).toBe(0);
    await pool.query("DELETE FROM sandbox_messages WHERE id = ANY($1)", [[id, farId]]);
  });

  it("drops the days before the retention whole, thins only the day that straddles it, and keeps the rest", async () => {
    const now = nowSeconds() + 200 * DAY; // days of their own, away from the other cases
    await maintainDayPartitions(app.ctx.database, new Date((now - 12 * DAY) * 1000));
    await maintainDayPartitions(app.ctx.database, new Date((now - 4 * DAY) * 1000));
    const before = now - 7 * DAY;
    const gone = [await captureAt(pool, now - 10 * DAY, "10 days"), await captureAt(pool, before - 60, "just past")];
    const kept = [await captureAt(pool, before + 60, "just inside"), await captureAt(pool, now - DAY, "yesterday")];
    const oldDay = dayTableName(TABLE, dayOf(now - 10 * DAY));
    expect(await names(app.ctx.database)).toContain(oldDay);

    const report = await purgeDayPartitionedBefore(app.ctx.database, TABLE, before, new Date(now * 1000));
    expect(report.partitionsDropped).toBeGreaterThanOrEqual(3);
    expect(report.partitionsWaiting).toBe(0);
    const left = await listDayPartitions(app.ctx.database, TABLE);
    expect(left.map((p) => p.name)).not.toContain(oldDay);
    expect(left.filter((p) => p.upper !== null && p.upper <= before)).toEqual([]);
    expect(left.map((p) => p.name)).toContain(dayTableName(TABLE, dayOf(before))); // the straddling day: thinned, not dropped
    const { rows } = await pool.query<{ id: string }>("SELECT id FROM sandbox_messages WHERE id = ANY($1) ORDER BY id", [[...gone, ...kept]]);
    expect(rows.map((r) => Number(r.id))).toEqual(kept);
    // Nothing is left detached.
    const detached = await pool.query("SELECT relname FROM pg_class WHERE relname LIKE 'sandbox_messages_p%' AND relkind = 'r' AND NOT relispartition");
    expect(detached.rows).toEqual([]);
  });

  it("thins, not drops, the days behind now that the hourly maintenance keeps, when the retention is shorter", async () => {
    const now = nowSeconds() + 300 * DAY;
    await maintainDayPartitions(app.ctx.database, new Date(now * 1000));
    const yesterday = dayTableName(TABLE, dayOf(now - DAY));
    const old = await captureAt(pool, now - DAY - 3600, "yesterday");
    const fresh = await captureAt(pool, now - 60, "a minute ago");

    const report = await purgeDayPartitionedBefore(app.ctx.database, TABLE, now - 1800, new Date(now * 1000));
    expect(report.rows).toBe(1);
    expect(await names(app.ctx.database)).toEqual(expect.arrayContaining([yesterday, dayTableName(TABLE, dayOf(now))]));
    const { rows } = await pool.query<{ id: string }>("SELECT id FROM sandbox_messages WHERE id = ANY($1)", [[old, fresh]]);
    expect(rows.map((r) => Number(r.id))).toEqual([fresh]);
    // So the next hourly run has nothing to make again.
    expect((await maintainDayPartitions(app.ctx.database, new Date(now * 1000))).dayPartitionsMade).toBe(0);
    await pool.query("DELETE FROM sandbox_messages WHERE id = $1", [fresh]);
  });

  it("waits for the next run when the lock on the table is not granted within 50 ms", async () => {
    const now = nowSeconds() + 400 * DAY;
    await maintainDayPartitions(app.ctx.database, new Date((now - 20 * DAY) * 1000));
    const holder = await pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE sandbox_messages IN ROW EXCLUSIVE MODE"); // a capture being stored
      const started = Date.now();
      const report = await purgeDayPartitionedBefore(app.ctx.database, TABLE, now - 7 * DAY, new Date(now * 1000));
      expect(report.partitionsWaiting).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    const report = await purgeDayPartitionedBefore(app.ctx.database, TABLE, now - 7 * DAY, new Date(now * 1000));
    expect(report.partitionsWaiting).toBe(0);
    expect(report.partitionsDropped).toBeGreaterThan(0);
  });
});

describe("upgrade of unpartitioned sandbox captures", () => {
  let url: string;

  beforeAll(async () => {
    url = await createEmptyTestDatabase();
  });

  it("keeps every capture exactly once under its id; new ones go to day tables; retention empties, then drops, the legacy table", async () => {
    const database = openDatabase(url, { max: 2 });
    const pool = database.pool;
    const t = nowSeconds();
    try {
      await migrate(pool, { before: "0970" });
      expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = 'sandbox_messages'")).rows[0].relkind).toBe("r");
      // 1,000 captures past a 7-day retention, 1,000 inside it, and one from a clock three days ahead.
      await pool.query(
        `INSERT INTO sandbox_messages (received_at, rcpt_to, size, raw)
         SELECT to_timestamp($1::bigint - (i % 1000) - CASE WHEN i < 1000 THEN 10 * 86400 ELSE 86400 END), ARRAY['x@y.test'], 1, 'x'
           FROM generate_series(0, 1999) i`,
        [t],
      );
      const futureId = await captureAt(pool, t + 3 * DAY, "ahead");
      const before = (await pool.query("SELECT count(*)::int AS n, sum(id)::text AS s, max(id)::int AS m FROM sandbox_messages")).rows[0];
      expect(before.n).toBe(2001);

      const applied = await migrate(pool);
      expect(applied.slice(0, 3)).toEqual([
        "0970_sandbox_cutover_check.sql",
        "0971_sandbox_cutover_validate.sql",
        "0972_sandbox_partitioned_by_day.sql",
      ]);
      expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = 'sandbox_messages'")).rows[0].relkind).toBe("p");
      const after = (await pool.query("SELECT count(*)::int AS n, count(DISTINCT id)::int AS d, sum(id)::text AS s FROM sandbox_messages")).rows[0];
      expect(after).toEqual({ n: 2001, d: 2001, s: before.s });
      // The capture from the future moved the cut-over to the midnight after it; the legacy table holds everything before.
      const cut = Number((await pool.query("SELECT legacy_before FROM day_partition_layouts WHERE parent = $1", [TABLE])).rows[0].legacy_before);
      expect(cut).toBe(dayOf(t + 3 * DAY) + DAY);
      expect((await pool.query("SELECT count(*)::int AS n FROM ONLY sandbox_messages_legacy")).rows[0].n).toBe(2001);
      // Its five indexes were adopted by the parent's, not built again beside them.
      const legacyIndexes = await pool.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'sandbox_messages_legacy' ORDER BY 1");
      expect(legacyIndexes.rows.map((r) => r.name)).toEqual([
        "sandbox_messages_legacy_account",
        "sandbox_messages_legacy_message",
        "sandbox_messages_legacy_pkey",
        "sandbox_messages_legacy_rcpt",
        "sandbox_messages_legacy_received",
      ]);
      expect((await sandboxRowWithRaw(database, futureId))?.subject).toBe("ahead");

      // New captures go through the new table at once; ids continue the old sequence; the inbox sees old and new.
      const newId = await captureAt(pool, cut + DAY, "after the cut-over");
      expect(newId).toBeGreaterThan(before.m);
      expect(await partitionOf(pool, newId)).toEqual([dayTableName(TABLE, cut + DAY)]);
      const page = await sandboxRowsPage(database, { limit: 2, offset: 0 });
      expect(page.total).toBe(2002);
      expect(page.rows.map((r) => r.subject)).toEqual(["after the cut-over", "ahead"]);

      // Retention deletes the expired rows inside the legacy table, exactly those...
      const first = await purgeDayPartitionedBefore(database, TABLE, t - 7 * DAY);
      expect(first).toEqual({ rows: 1000, partitionsDropped: 0, partitionsWaiting: 0 });
      expect((await pool.query("SELECT count(*)::int AS n FROM sandbox_messages")).rows[0].n).toBe(1002);
      // ...and drops the table once the cut-over itself is past retention.
      const second = await purgeDayPartitionedBefore(database, TABLE, cut, new Date((cut + 3 * DAY) * 1000));
      expect(second.partitionsDropped).toBeGreaterThanOrEqual(1);
      expect(await names(database)).not.toContain("sandbox_messages_legacy");
      expect((await pool.query("SELECT id FROM sandbox_messages")).rows.map((r) => Number(r.id))).toEqual([newId]);
      // The sequence outlived it.
      expect(await captureAt(pool, cut + DAY, "later")).toBeGreaterThan(newId);
    } finally {
      await database.close();
    }
  });
});
