import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropPastMessageDays } from "../../lib/domain/partitions/message-partitions";
import { openDatabase } from "../../lib/storage/database";
import { createdInIdDays, DAY, dayTableName, ensureDayPartitions, firstIdOfDay, listDayPartitions } from "../../lib/storage/day-partitions";
import { loadMessagesToDeliver } from "../../lib/storage/delivery-rows";
import { migrate } from "../../lib/storage/migrate";
import { selectEventPage } from "../../lib/storage/event-rows";
import { insertNotifications } from "../../lib/storage/notification-rows";
import { deleteMessagesPastRetention } from "../../lib/storage/retention-rows";
import { sendViaApi, simpleEmail, waitForEvent } from "../support/delivery-helpers";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createEmptyTestDatabase } from "../support/test-database";

/**
 * Messages partitioned by day on created_at, their recipients (and those
 * recipients' tracking rows) on the same day of their ids (migrations
 * 1000–1002, docs/adr/0044): a message and its recipients share a date, the
 * statements that hold recipient ids prune messages to their days, a day past
 * the longest retention goes whole with its recipients' tables unless it still
 * holds work, a shorter retention deletes a message with its recipients, and
 * the upgrade keeps every row readable.
 */

const TRACKED = ["message_recipients", "delivery_attempts", "engagement_windows"] as const;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const dayOf = (t: number) => t - (t % DAY);

const tableOf = async (q: pg.Pool, table: string, column: string, id: string) =>
  (await q.query<{ p: string }>(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${column} = $1`, [id])).rows.map((r) => r.p);

const partitionsOf = async (q: pg.Pool, table: string) =>
  (await q.query<{ n: string }>("SELECT inhrelid::regclass::text AS n FROM pg_inherits WHERE inhparent = $1::regclass", [table])).rows.map((r) => r.n);

/**
 * A message of `accountId` created at `createdAt` (Unix seconds) with one recipient of that day
 * (`status`), an attempt and an open window; its recipient's id.
 */
async function messageOfDay(
  q: pg.Pool,
  accountId: string,
  createdAt: number,
  seq: number,
  options: { status?: string; scheduled?: boolean } = {},
): Promise<{ messageId: string; recipientId: string }> {
  const messageId = crypto.randomUUID();
  await q.query(
    `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, created_at, send_at, schedule_status)
     VALUES ($1, $2, 'a@part.test', 'part.test', 's', '{}', '{}', to_timestamp($3), $4, $5)`,
    [messageId, accountId, createdAt, options.scheduled ? new Date(Date.now() + 90 * DAY * 1000) : null, options.scheduled ? "scheduled" : null],
  );
  const recipientId = (BigInt(firstIdOfDay(dayOf(createdAt))) + BigInt(seq)).toString();
  await q.query("INSERT INTO message_recipients (id, message_id, account_id, email, kind, status) VALUES ($1, $2, $3, 'r@example.net', 'to', $4)", [
    recipientId,
    messageId,
    accountId,
    options.status ?? "delivered",
  ]);
  await q.query("INSERT INTO delivery_attempts (recipient_id, message_id, account_id, outcome) VALUES ($1, $2, $3, 'delivered')", [recipientId, messageId, accountId]);
  await q.query("INSERT INTO engagement_windows (recipient_id, kind, link_key, window_start) VALUES ($1, 'opened', '', now())", [recipientId]);
  return { messageId, recipientId };
}

/** [messages, recipients, attempts, windows] naming this message. */
const rowsOfMessage = async (q: pg.Pool, messageId: string) => {
  const n = async (sql: string) => (await q.query<{ n: number }>(sql, [messageId])).rows[0]!.n;
  return [
    await n("SELECT count(*)::int AS n FROM messages WHERE id = $1"),
    await n("SELECT count(*)::int AS n FROM message_recipients WHERE message_id = $1"),
    await n("SELECT count(*)::int AS n FROM delivery_attempts WHERE message_id = $1"),
    await n("SELECT count(*)::int AS n FROM engagement_windows w JOIN message_recipients r ON r.id = w.recipient_id WHERE r.message_id = $1"),
  ];
};

describe("messages partitioned by day", () => {
  let app: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    app = await startTestApp();
    pool = app.ctx.database.pool;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("files a sent message under its day and its recipients under the same date; recipient ids prune messages to their days", async () => {
    const t = nowSeconds();
    const { apiKey } = await createTestAccount(app.ctx, { name: "day", domain: "example.com" });
    const messageId = await sendViaApi(app, apiKey, simpleEmail("day@example.net"));
    await waitForEvent(app.ctx, messageId, "delivered", "day@example.net");

    const today = dayOf(t);
    expect(await tableOf(pool, "messages", "id", messageId)).toEqual([dayTableName("messages", today)]);
    const { rows } = await pool.query<{ id: string }>("SELECT id::text FROM message_recipients WHERE message_id = $1", [messageId]);
    expect(await tableOf(pool, "message_recipients", "id", rows[0]!.id)).toEqual([dayTableName("message_recipients", today)]);
    // The delivery's copy wrote the message's facts (size, links) into the same row it loaded.
    expect((await pool.query("SELECT size FROM messages WHERE id = $1", [messageId])).rows[0].size).toBeGreaterThan(0);

    // As a generic prepared plan (the delivery load and the round's update are named statements), the
    // bounds from recipient ids prune messages to those ids' day when the statement starts.
    const client = await pool.connect();
    try {
      await client.query("SET plan_cache_mode = force_generic_plan");
      await client.query(`PREPARE byRecipient (uuid, bigint, bigint) AS SELECT m.id FROM messages m WHERE m.id = $1 AND ${createdInIdDays("m.created_at", "$2", "$3")}`);
      const plan = (
        await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE byRecipient ('${messageId}', ${rows[0]!.id}, ${rows[0]!.id})`)
      ).rows.map((r) => r["QUERY PLAN"]);
      const scanned = plan.filter((line) => / Scan /.test(line)).map((line) => / on (\w+)/.exec(line)?.[1]);
      expect(scanned).toEqual([dayTableName("messages", today)]);
      expect(plan.join("\n")).toMatch(/Subplans Removed: \d+/);
      expect(plan.join("\n")).toMatch(/Index Scan .*\(actual rows=1(\.00)? /);
    } finally {
      await client.query("DEALLOCATE byRecipient"); // only ours: the pool's client keeps the app's named statements
      await client.query("RESET plan_cache_mode");
      client.release();
    }
  });

  it("shows an event its message's headers whether the event came soon after the message or days later", async () => {
    const t = nowSeconds();
    const today = dayOf(t);
    const { accountId } = await createTestAccount(app.ctx, { name: "late", domain: "late.test" });
    await ensureDayPartitions(app.ctx.database, "messages", today - 5 * DAY, today);
    const headersOf = (subject: string) => ({ MessageId: "x", From: [], ReplyTo: [], To: [], Cc: [], Bcc: [], Subject: subject });
    const withHeaders = async (createdAt: number, subject: string) => {
      const id = crypto.randomUUID();
      await pool.query(
        `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, created_at)
         VALUES ($1, $2, 'a@late.test', 'late.test', $3, $4, '{}', to_timestamp($5))`,
        [id, accountId, subject, JSON.stringify(headersOf(subject)), createdAt],
      );
      await pool.query("INSERT INTO events (account_id, message_id, type, logged_at, recipient) VALUES ($1, $2, 'opened', $3, 'r@example.net')", [accountId, id, t - 60]);
      return id;
    };
    // Found by the near days' branch, and by the probe of every day (an open four days after the send).
    const soon = await withHeaders(t - 3600, "soon");
    const late = await withHeaders(today - 4 * DAY + 60, "late");
    const page = await selectEventPage(app.ctx.database, accountId, {}, 10, 0);
    const subjects = Object.fromEntries(page.map((r) => [r.message_id, r.headers?.Subject]));
    expect(subjects).toEqual({ [soon]: "soon", [late]: "late" });

    // The webhook fan-out finds each message's domain too (the days around now, then message_from_domain).
    await pool.query("INSERT INTO webhooks (account_id, event, url) VALUES ($1, 'open', 'http://127.0.0.1:9/hook')", [accountId]);
    const ids = await insertNotifications(
      app.ctx.database,
      [soon, late].map((messageId, i) => ({ event_id: 900_000 + i, account_id: accountId, message_id: messageId, names: ["open"], payload: {} })),
    );
    const { rows } = await pool.query<{ domain: string }>("SELECT payload->>'Domain' AS domain FROM webhook_notifications WHERE id = ANY($1::bigint[]) ORDER BY id", [ids]);
    expect(rows.map((r) => r.domain)).toEqual(["late.test", "late.test"]);
  });

  it("deletes a message past a shorter retention with its recipients and their tracking rows; keeps one still queued", async () => {
    const t = nowSeconds();
    const { accountId } = await createTestAccount(app.ctx, { name: "short", domain: "short.test" });
    await pool.query("UPDATE accounts SET retention_days = 1 WHERE id = $1", [accountId]);
    const twoDaysAgo = dayOf(t) - 2 * DAY + 3600;
    const done = await messageOfDay(pool, accountId, twoDaysAgo, 11);
    const queued = await messageOfDay(pool, accountId, twoDaysAgo, 12, { status: "queued" });
    expect(await tableOf(pool, "messages", "id", done.messageId)).toEqual([dayTableName("messages", dayOf(twoDaysAgo))]);

    expect(await deleteMessagesPastRetention(app.ctx.database, new Date())).toBe(1);
    expect(await rowsOfMessage(pool, done.messageId)).toEqual([0, 0, 0, 0]);
    expect(await rowsOfMessage(pool, queued.messageId)).toEqual([1, 1, 1, 1]);
    await pool.query("UPDATE message_recipients SET status = 'failed' WHERE id = $1", [queued.recipientId]);
    expect(await deleteMessagesPastRetention(app.ctx.database, new Date())).toBe(1);
    expect(await rowsOfMessage(pool, queued.messageId)).toEqual([0, 0, 0, 0]);
  });

  it("drops a day past the longest retention whole, with its recipients' and tracking tables; keeps a day with work left and the days within retention", async () => {
    const t = nowSeconds();
    const today = dayOf(t);
    const { accountId } = await createTestAccount(app.ctx, { name: "drop", domain: "drop.test" });
    // Three days behind (the migration made two): one whose messages are done, one with a queued
    // recipient, one with a message scheduled months ahead.
    for (const table of ["messages", ...TRACKED] as const) await ensureDayPartitions(app.ctx.database, table, today - 4 * DAY, today);
    const done = await messageOfDay(pool, accountId, today - DAY + 60, 21);
    const waiting = await messageOfDay(pool, accountId, today - 2 * DAY + 60, 22, { status: "deferred" });
    const scheduled = await messageOfDay(pool, accountId, today - 3 * DAY + 60, 23, { status: "failed", scheduled: true });

    // 35 days on, with retention of 30 days everywhere: every day up to today + 4 is past it.
    const later = new Date((t + 35 * DAY) * 1000);
    const report = await dropPastMessageDays(app.ctx.database, later, 30);
    expect(report.messagePartitionsDropped).toBeGreaterThanOrEqual(3);
    expect(report.messagePartitionsWaiting).toBe(0);
    const messageDays = await partitionsOf(pool, "messages");
    expect(messageDays).not.toContain(dayTableName("messages", today - DAY));
    expect(messageDays).toContain(dayTableName("messages", today - 2 * DAY));
    expect(messageDays).toContain(dayTableName("messages", today - 3 * DAY));
    expect(messageDays).toContain(dayTableName("messages", today + 7 * DAY)); // within retention of the later now
    for (const table of TRACKED) {
      const names = await partitionsOf(pool, table);
      expect(names).not.toContain(dayTableName(table, today - DAY));
      expect(names).toContain(dayTableName(table, today - 2 * DAY));
      expect(names).toContain(dayTableName(table, today - 3 * DAY));
      expect((await pool.query("SELECT to_regclass($1) AS t", [dayTableName(table, today - DAY)])).rows[0].t).toBeNull();
    }
    expect(await rowsOfMessage(pool, done.messageId)).toEqual([0, 0, 0, 0]);
    expect(await rowsOfMessage(pool, waiting.messageId)).toEqual([1, 1, 1, 1]);
    expect(await rowsOfMessage(pool, scheduled.messageId)).toEqual([1, 1, 1, 1]);

    // Once its work is final, the day goes at the next run.
    await pool.query("UPDATE message_recipients SET status = 'delivered' WHERE id = $1", [waiting.recipientId]);
    await dropPastMessageDays(app.ctx.database, later, 30);
    expect(await partitionsOf(pool, "messages")).not.toContain(dayTableName("messages", today - 2 * DAY));
    expect(await partitionsOf(pool, "message_recipients")).not.toContain(dayTableName("message_recipients", today - 2 * DAY));
    expect(await rowsOfMessage(pool, waiting.messageId)).toEqual([0, 0, 0, 0]);
  });
});

describe("upgrade of the unpartitioned messages table", () => {
  let url: string;

  beforeAll(async () => {
    url = await createEmptyTestDatabase();
  });

  it("keeps every message readable with its recipients, adopts its keys, files new days in day tables, and drops the legacy table once emptied", async () => {
    const database = openDatabase(url, { max: 2 });
    const pool = database.pool;
    const t = nowSeconds();
    try {
      const insertMessage = async (accountId: string, createdAt?: number) => {
        const id = crypto.randomUUID();
        await pool.query(
          `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, created_at)
           VALUES ($1, $2, 'a@up.test', 'up.test', 's', '{}', '{}', COALESCE(to_timestamp($3), now()))`,
          [id, accountId, createdAt ?? null],
        );
        const { rows } = await pool.query<{ id: string }>(
          "INSERT INTO message_recipients (message_id, account_id, email, kind) VALUES ($1, $2, 'r@example.net', 'to') RETURNING id::text",
          [id, accountId],
        );
        return { messageId: id, recipientId: rows[0]!.id };
      };
      // A recipient with a sequence id (before day-prefixed ids), then one with a day-prefixed id, both in the old table.
      await migrate(pool, { before: "0994" });
      const accountId = (await pool.query<{ id: string }>("INSERT INTO accounts (name, plan, webhook_signing_key) VALUES ('up', 'unlimited', 'k') RETURNING id")).rows[0]!
        .id;
      const oldest = await insertMessage(accountId);
      expect(BigInt(oldest.recipientId) >> 32n).toBe(0n);
      await migrate(pool, { before: "1000" });
      const older = await insertMessage(accountId);
      expect(BigInt(older.recipientId) >> 32n).toBe(BigInt(Math.floor(t / DAY)));

      const applied = await migrate(pool);
      expect(applied.slice(0, 3)).toEqual(["1000_messages_cutover_check.sql", "1001_messages_cutover_validate.sql", "1002_messages_partitioned_by_day.sql"]);
      expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = 'messages'")).rows[0].relkind).toBe("p");
      expect(await tableOf(pool, "messages", "id", oldest.messageId)).toEqual(["messages_legacy"]);
      // No foreign key refers to messages any more; the legacy table's own were adopted, as were its indexes.
      expect((await pool.query("SELECT count(*)::int AS n FROM pg_constraint WHERE confrelid = 'messages'::regclass")).rows[0].n).toBe(0);
      const fks = await pool.query("SELECT conname, conparentid <> 0 AS adopted FROM pg_constraint WHERE conrelid = 'messages_legacy'::regclass AND contype = 'f' ORDER BY 1");
      expect(fks.rows).toEqual([
        { conname: "messages_account_id_fkey", adopted: true },
        { conname: "messages_api_key_id_fkey", adopted: true },
      ]);
      const parentOf = async (index: string) =>
        (await pool.query("SELECT i.inhparent::regclass::text AS p FROM pg_inherits i WHERE i.inhrelid = $1::regclass", [index])).rows[0]?.p;
      expect(await parentOf("messages_legacy_account_created")).toBe("messages_account_created");
      expect(await parentOf("messages_legacy_scheduled_due")).toBe("messages_scheduled_due");

      // The delivery load finds both by their recipients' ids: the sequence id bounds nothing above.
      const loaded = await loadMessagesToDeliver(database, [
        { messageId: oldest.messageId, recipientIds: [Number(oldest.recipientId)] },
        { messageId: older.messageId, recipientIds: [Number(older.recipientId)] },
      ]);
      expect(loaded.map((l) => l?.id)).toEqual([oldest.messageId, older.messageId]);
      expect(loaded.map((l) => l?.recipients?.length)).toEqual([1, 1]);

      // Until the cut-over a new message joins the legacy rows; after it, its day's table.
      const cut = Number((await pool.query("SELECT legacy_before FROM day_partition_layouts WHERE parent = 'messages'")).rows[0].legacy_before);
      expect(cut).toBe(dayOf(t + 3600) + DAY);
      const now = await insertMessage(accountId);
      expect(await tableOf(pool, "messages", "id", now.messageId)).toEqual(["messages_legacy"]);
      await ensureDayPartitions(database, "messages", cut, cut + 2 * DAY);
      const after = await insertMessage(accountId, cut + DAY + 60);
      expect(await tableOf(pool, "messages", "id", after.messageId)).toEqual([dayTableName("messages", cut + DAY)]);

      // Past retention, the purge deletes the legacy rows with their recipients, then the emptied legacy table goes.
      await pool.query("UPDATE message_recipients SET status = 'delivered'");
      const far = new Date((cut + 40 * DAY) * 1000);
      expect(await deleteMessagesPastRetention(database, far)).toBe(4);
      expect((await pool.query("SELECT count(*)::int AS n FROM message_recipients")).rows[0].n).toBe(0);
      await dropPastMessageDays(database, far, 30);
      expect((await listDayPartitions(database, "messages")).map((p) => p.name)).not.toContain("messages_legacy");
    } finally {
      await database.close();
    }
  });
});
