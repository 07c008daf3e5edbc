import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maintainDayPartitions } from "../../lib/domain/partitions/day-partitions";
import { purgeExpiredInboundMessages } from "../../lib/domain/inbound/retention";
import { openDatabase, type Queryable } from "../../lib/storage/database";
import { DAY, dayTableName, listDayPartitions } from "../../lib/storage/day-partitions";
import { LOAD_FOR_POST, findInboundMessage, listInboundAttempts, loadInboundForPost, recordInboundAttempt } from "../../lib/storage/inbound-rows";
import { migrate } from "../../lib/storage/migrate";
import { withTransaction } from "../../lib/storage/transaction";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createEmptyTestDatabase } from "../support/test-database";

/**
 * Received inbound mail partitioned by day (migrations 0980–0982,
 * docs/adr/0041): a day whose every message has expired is dropped whole with
 * its messages' attempts, a day still holding a live message is only thinned,
 * and the upgrade of an unpartitioned table keeps every message and attempt.
 */

const TABLE = "inbound_messages";
const nowSeconds = () => Math.floor(Date.now() / 1000);
const dayOf = (t: number) => t - (t % DAY);

/** Stores one received message (received and expiring at Unix seconds) with `attempts` attempts; its id. */
async function messageAt(q: pg.Pool, accountId: string, receivedAt: number, expiresAt: number, attempts = 1): Promise<string> {
  const id = randomUUID();
  await q.query(
    `INSERT INTO inbound_messages (id, account_id, webhook_url, original_recipient, size, raw, received_at, expires_at)
     VALUES ($1, $2, 'http://127.0.0.1:9/in', 'in@example.org', 3, 'abc', to_timestamp($3), to_timestamp($4))`,
    [id, accountId, receivedAt, expiresAt],
  );
  for (let i = 0; i < attempts; i++) {
    await q.query("INSERT INTO inbound_attempts (inbound_message_id, attempted_at, status_code) VALUES ($1, to_timestamp($2), 500)", [id, receivedAt + 60 * (i + 1)]);
  }
  return id;
}

const countOf = async (q: pg.Pool, sql: string, values: unknown[] = []) => (await q.query<{ n: number }>(sql, values)).rows[0]!.n;

describe("inbound messages partitioned by day", () => {
  let app: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    pool = app.ctx.database.pool;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("has the days ahead at start and files each message under its day, readable by id", async () => {
    const t = nowSeconds();
    const names = new Set((await listDayPartitions(app.ctx.database, TABLE)).map((p) => p.name));
    for (let d = -2; d <= 7; d++) expect(names, `day ${d}`).toContain(dayTableName(TABLE, dayOf(t + d * DAY)));
    expect(names).toContain("inbound_messages_default");
    const { accountId } = await createTestAccount(app.ctx, { name: "files", domain: "files.test" });
    const id = await messageAt(pool, accountId, t, t + 7 * DAY);
    const { rows } = await pool.query("SELECT tableoid::regclass::text AS p FROM inbound_messages WHERE id = $1", [id]);
    expect(rows).toEqual([{ p: dayTableName(TABLE, dayOf(t)) }]);
    expect((await findInboundMessage(app.ctx.database, accountId, id))?.original_recipient).toBe("in@example.org");
    // Another account's id is still none of this one's.
    const other = await createTestAccount(app.ctx, { name: "other-files", domain: "other-files.test" });
    expect(await findInboundMessage(app.ctx.database, other.accountId, id)).toBeUndefined();
  });

  it("prunes the posting path's statements to the message's own day table when its day is known", async () => {
    const t = nowSeconds();
    const { accountId } = await createTestAccount(app.ctx, { name: "prune", domain: "prune.test" });
    const id = await messageAt(pool, accountId, t, t + 7 * DAY, 0);
    const receivedAt = new Date(t * 1000);
    const client = await pool.connect();
    try {
      await client.query("SET plan_cache_mode = force_generic_plan"); // as a prepared statement runs after its fifth use
      await client.query(`PREPARE load_for_post (uuid, timestamptz, timestamptz) AS ${LOAD_FOR_POST}`);
      const tablesScanned = async (from: Date | string, to: Date | string) => {
        const [f, u] = [from, to].map((b) => client.escapeLiteral(b instanceof Date ? b.toISOString() : b));
        const { rows } = await client.query<{ "QUERY PLAN": string }>(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE load_for_post(${client.escapeLiteral(id)}, ${f}, ${u})`,
        );
        // The tables scanned: the scans are what pruning removes.
        const scanLines = rows.map((r) => r["QUERY PLAN"]).filter((line) => / Scan /.test(line));
        return new Set(scanLines.flatMap((line) => line.match(/inbound_messages_(p\d{8}|default|legacy)\b/g) ?? []));
      };
      const dayStart = new Date((t - (t % DAY)) * 1000);
      expect([...(await tablesScanned(dayStart, new Date(dayStart.getTime() + DAY * 1000)))]).toEqual([dayTableName(TABLE, dayOf(t))]);
      expect((await tablesScanned("-infinity", "infinity")).size).toBeGreaterThan(5);
    } finally {
      await client.query("DEALLOCATE load_for_post"); // only ours: the pool's client keeps the app's named statements
      client.release();
    }
    // The row functions find it with its day, and without it (a job of an older version).
    expect((await loadInboundForPost(app.ctx.database, { id, receivedAt }))?.id).toBe(id);
    expect((await loadInboundForPost(app.ctx.database, { id }))?.id).toBe(id);
    // A wrong day finds nothing rather than another row.
    expect(await loadInboundForPost(app.ctx.database, { id, receivedAt: new Date((t - 3 * DAY) * 1000) })).toBeUndefined();
    const attempt = { startedAt: new Date(), durationMs: 5, statusCode: 200, body: "ok" };
    await recordInboundAttempt(app.ctx.database, false, { id, receivedAt }, attempt, { status: "delivered", nextAttemptAt: null });
    expect((await findInboundMessage(app.ctx.database, accountId, id))?.status).toBe("delivered");
    expect(await listInboundAttempts(app.ctx.database, id)).toHaveLength(1);
  });

  it("reads and records a message on its day table in one statement, and on the parent when its day has no table", async () => {
    const { accountId } = await createTestAccount(app.ctx, { name: "day-first", domain: "day-first.test" });
    const statements: string[] = [];
    const recording: Queryable = {
      db: app.ctx.database.db,
      query: (text, values) => {
        statements.push(typeof text === "string" ? text : text.text);
        return app.ctx.database.query(text, values);
      },
    };
    const attempt = { startedAt: new Date(), durationMs: 5, statusCode: 500, body: "no" };
    const pending = { status: "pending" as const, nextAttemptAt: new Date(Date.now() + 60_000) };

    // Today: its day table was made ahead; one statement each, on that table.
    const t = nowSeconds();
    const today = await messageAt(pool, accountId, t, t + 7 * DAY, 0);
    const todayKey = { id: today, receivedAt: new Date(t * 1000) };
    expect((await loadInboundForPost(recording, todayKey))?.id).toBe(today);
    await recordInboundAttempt(recording, false, todayKey, attempt, pending);
    expect(statements).toHaveLength(2);
    for (const text of statements) expect(text).toContain(`"${dayTableName(TABLE, dayOf(t))}"`);
    expect((await findInboundMessage(app.ctx.database, accountId, today))?.attempts).toBe(1);

    // A day with no table (the default table holds it): the day table's statement fails, the parent's finds it.
    statements.length = 0;
    const far = t + 900 * DAY;
    const stray = await messageAt(pool, accountId, far, far + 7 * DAY, 0);
    const { rows } = await pool.query("SELECT tableoid::regclass::text AS p FROM inbound_messages WHERE id = $1", [stray]);
    expect(rows).toEqual([{ p: "inbound_messages_default" }]);
    const strayKey = { id: stray, receivedAt: new Date(far * 1000) };
    expect((await loadInboundForPost(recording, strayKey))?.id).toBe(stray);
    await recordInboundAttempt(recording, false, strayKey, attempt, { status: "delivered", nextAttemptAt: null });
    expect(statements).toHaveLength(4);
    expect((await findInboundMessage(app.ctx.database, accountId, stray))?.status).toBe("delivered");
    expect(await listInboundAttempts(app.ctx.database, stray)).toHaveLength(1);
    // In a transaction the parent's statement only: a missing table's error would abort it.
    await withTransaction(app.ctx.database, (tx) => recordInboundAttempt(tx, true, strayKey, attempt, pending));
    expect(await listInboundAttempts(app.ctx.database, stray)).toHaveLength(2);
    await pool.query("DELETE FROM inbound_messages WHERE id = $1", [stray]);

    // A message gone (expired meanwhile) gets no attempt, on either path.
    const gone = randomUUID();
    await recordInboundAttempt(app.ctx.database, false, { id: gone, receivedAt: new Date(t * 1000) }, attempt, pending);
    await recordInboundAttempt(app.ctx.database, false, { id: gone }, attempt, pending);
    expect(await listInboundAttempts(app.ctx.database, gone)).toEqual([]);
  });

  it("drops a day whose every message has expired with their attempts, and only thins a day that holds a live one", async () => {
    const now = nowSeconds() + 300 * DAY; // days of their own, away from the other cases
    await maintainDayPartitions(app.ctx.database, new Date((now - 10 * DAY) * 1000));
    const { accountId } = await createTestAccount(app.ctx, { name: "expiry", domain: "expiry.test" });
    // Day A (9 days ago): both expired. Day B (8 days ago): one expired, one kept longer (retention raised since).
    const a1 = await messageAt(pool, accountId, now - 9 * DAY, now - 2 * DAY, 2);
    const a2 = await messageAt(pool, accountId, now - 9 * DAY + 60, now - 2 * DAY, 1);
    const b1 = await messageAt(pool, accountId, now - 8 * DAY, now - DAY, 3);
    const b2 = await messageAt(pool, accountId, now - 8 * DAY + 60, now + DAY, 1);
    const dayA = dayTableName(TABLE, dayOf(now - 9 * DAY));
    const dayB = dayTableName(TABLE, dayOf(now - 8 * DAY));
    // A message of today still inside its retention at that time: no purge may touch it or its attempt.
    const live = await messageAt(pool, accountId, nowSeconds(), now + 10 * DAY, 1);

    const report = await purgeExpiredInboundMessages(app.ctx.database, new Date(now * 1000));
    expect(report.inboundPartitionsWaiting).toBe(0);
    expect(report.inboundMessages).toBeGreaterThanOrEqual(3); // a1, a2 with their table; b1 alone
    const names = (await listDayPartitions(app.ctx.database, TABLE)).map((p) => p.name);
    expect(names).not.toContain(dayA);
    expect(names).toContain(dayB);
    const left = (await pool.query<{ id: string }>("SELECT id FROM inbound_messages WHERE id = ANY($1)", [[a1, a2, b1, b2, live]])).rows.map((r) => r.id);
    expect(left.sort()).toEqual([b2, live].sort());
    for (const gone of [a1, a2, b1]) expect(await listInboundAttempts(app.ctx.database, gone)).toEqual([]);
    expect(await listInboundAttempts(app.ctx.database, b2)).toHaveLength(1);
    expect(await listInboundAttempts(app.ctx.database, live)).toHaveLength(1);

    // Once b2 has expired too, its day goes whole.
    const later = await purgeExpiredInboundMessages(app.ctx.database, new Date((now + 2 * DAY) * 1000));
    expect(later.inboundMessages).toBeGreaterThanOrEqual(1);
    expect((await listDayPartitions(app.ctx.database, TABLE)).map((p) => p.name)).not.toContain(dayB);
    expect(await listInboundAttempts(app.ctx.database, b2)).toEqual([]);
  });

  it("waits for the next run when the lock on the table is not granted within 50 ms, deleting the expired messages meanwhile", async () => {
    const now = nowSeconds() + 500 * DAY;
    await maintainDayPartitions(app.ctx.database, new Date((now - 20 * DAY) * 1000));
    const { accountId } = await createTestAccount(app.ctx, { name: "busy", domain: "busy.test" });
    const old = await messageAt(pool, accountId, now - 15 * DAY, now - 8 * DAY, 1);
    const holder = await pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE inbound_messages IN ROW EXCLUSIVE MODE"); // a group commit in flight
      const started = Date.now();
      const report = await purgeExpiredInboundMessages(app.ctx.database, new Date(now * 1000));
      expect(report.inboundPartitionsWaiting).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(5000);
      // The retention promise holds meanwhile: the expired message and its attempt are gone.
      expect(await countOf(pool, "SELECT count(*)::int AS n FROM inbound_messages WHERE id = $1", [old])).toBe(0);
      expect(await listInboundAttempts(app.ctx.database, old)).toEqual([]);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    const report = await purgeExpiredInboundMessages(app.ctx.database, new Date(now * 1000));
    expect(report.inboundPartitionsWaiting).toBe(0);
    expect(report.inboundPartitionsDropped).toBeGreaterThan(0);
  });
});

describe("upgrade of unpartitioned inbound messages", () => {
  let url: string;

  beforeAll(async () => {
    url = await createEmptyTestDatabase();
  });

  it("keeps every message and attempt; new ones go to day tables; the legacy table goes once all of it has expired", async () => {
    const database = openDatabase(url, { max: 2 });
    const pool = database.pool;
    const t = nowSeconds();
    try {
      await migrate(pool, { before: "0980" });
      const accountId = (
        await pool.query<{ id: string }>("INSERT INTO accounts (name, plan, webhook_signing_key) VALUES ('up', 'unlimited', 'k') RETURNING id")
      ).rows[0]!.id;
      const routeId = (
        await pool.query<{ id: string }>("INSERT INTO inbound_routes (account_id, match, webhook_url) VALUES ($1, '*@up.test', 'http://127.0.0.1:9/') RETURNING id", [accountId])
      ).rows[0]!.id;
      const expired = [];
      for (let i = 0; i < 3; i++) expired.push(await messageAt(pool, accountId, t - 10 * DAY + i, t - 3 * DAY, 2));
      const kept = await messageAt(pool, accountId, t - DAY, t + 6 * DAY, 1);
      const ahead = await messageAt(pool, accountId, t + 3 * DAY, t + 10 * DAY, 1);
      await pool.query("UPDATE inbound_messages SET route_id = $1", [routeId]);

      const applied = await migrate(pool);
      expect(applied.slice(0, 3)).toEqual([
        "0980_inbound_cutover_check.sql",
        "0981_inbound_cutover_validate.sql",
        "0982_inbound_partitioned_by_day.sql",
      ]);
      expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = 'inbound_messages'")).rows[0].relkind).toBe("p");
      expect(await countOf(pool, "SELECT count(*)::int AS n FROM inbound_messages")).toBe(5);
      expect(await countOf(pool, "SELECT count(*)::int AS n FROM inbound_attempts")).toBe(8);
      // The message from a clock ahead moved the cut-over to the midnight after it.
      const cut = Number((await pool.query("SELECT legacy_before FROM day_partition_layouts WHERE parent = $1", [TABLE])).rows[0].legacy_before);
      expect(cut).toBe(dayOf(t + 3 * DAY) + DAY);
      // Indexes and foreign keys were adopted, not made again beside the old ones.
      const indexes = await pool.query<{ n: string }>("SELECT indexname AS n FROM pg_indexes WHERE tablename = 'inbound_messages_legacy' ORDER BY 1");
      expect(indexes.rows.map((r) => r.n)).toEqual([
        "inbound_messages_legacy_account_received",
        "inbound_messages_legacy_expires",
        "inbound_messages_legacy_pkey",
        "inbound_messages_legacy_replied_to",
      ]);
      const fks = await countOf(pool, "SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'inbound_messages_legacy'::regclass AND contype = 'f'");
      expect(fks).toBe(2);
      // A route's delete still clears the old rows' route (ON DELETE SET NULL through the adopted key).
      await pool.query("DELETE FROM inbound_routes WHERE id = $1", [routeId]);
      expect(await countOf(pool, "SELECT count(*)::int AS n FROM inbound_messages WHERE route_id IS NOT NULL")).toBe(0);
      expect((await findInboundMessage(database, accountId, ahead))?.id).toBe(ahead);

      // A new message after the cut-over gets a day table.
      const fresh = await messageAt(pool, accountId, cut + DAY, cut + 8 * DAY, 1);
      expect((await pool.query("SELECT tableoid::regclass::text AS p FROM inbound_messages WHERE id = $1", [fresh])).rows).toEqual([
        { p: dayTableName(TABLE, cut + DAY) },
      ]);

      // Retention: the expired ones leave the legacy table one by one, with their attempts...
      const first = await purgeExpiredInboundMessages(database, new Date(t * 1000));
      expect(first).toEqual({ inboundMessages: 3, inboundPartitionsDropped: 0, inboundPartitionsWaiting: 0 });
      expect(await countOf(pool, "SELECT count(*)::int AS n FROM inbound_attempts")).toBe(3);
      // ...and the legacy table goes whole once everything in it has expired.
      const second = await purgeExpiredInboundMessages(database, new Date((t + 11 * DAY) * 1000));
      expect(second.inboundPartitionsDropped).toBeGreaterThanOrEqual(1);
      expect((await listDayPartitions(database, TABLE)).map((p) => p.name)).not.toContain("inbound_messages_legacy");
      expect((await pool.query("SELECT id FROM inbound_messages")).rows).toEqual([{ id: fresh }]);
      expect(await countOf(pool, "SELECT count(*)::int AS n FROM inbound_attempts WHERE inbound_message_id = ANY($1)", [[...expired, kept, ahead]])).toBe(0);
      expect(await listInboundAttempts(database, fresh)).toHaveLength(1);
      void kept;
    } finally {
      await database.close();
    }
  });
});
