import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropEmptyRecipientDays } from "../../lib/domain/partitions/recipient-partitions";
import { openDatabase } from "../../lib/storage/database";
import { DAY, dayTableName, firstIdOfDay, listDayPartitions } from "../../lib/storage/day-partitions";
import { migrate } from "../../lib/storage/migrate";
import { countEngagement } from "../../lib/storage/recipient-rows";
import { withTransaction } from "../../lib/storage/transaction";
import { sendViaApi, simpleEmail, waitForEvent } from "../support/delivery-helpers";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { createEmptyTestDatabase } from "../support/test-database";

/**
 * A message's recipients partitioned by day on their day-prefixed id, their
 * delivery attempts and engagement windows on the same day of their
 * recipient_id (migrations 0994–0998, docs/adr/0043): new rows land in their
 * day's tables, a batch's statements are pruned to its days, an emptied past
 * day goes whole with its tracking tables, and the upgrade keeps every row and key.
 */

const TABLES = ["message_recipients", "delivery_attempts", "engagement_windows"] as const;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const dayOf = (t: number) => t - (t % DAY);

const tableOf = async (q: pg.Pool, table: string, column: string, id: string) =>
  (await q.query<{ p: string }>(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${column} = $1`, [id])).rows.map((r) => r.p);

/** A message of `accountId` with one recipient (explicit id when given), one attempt and one open window; the recipient's id. */
async function recipientWithTracking(q: pg.Pool, accountId: string, messageId: string, id?: string): Promise<string> {
  await q.query(
    "INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content) VALUES ($1, $2, 'a@up.test', 'up.test', 's', '{}', '{}') ON CONFLICT DO NOTHING",
    [messageId, accountId],
  );
  const { rows } = await q.query<{ id: string }>(
    id === undefined
      ? "INSERT INTO message_recipients (message_id, account_id, email, kind, status) VALUES ($1, $2, 'r@example.net', 'to', 'delivered') RETURNING id::text"
      : "INSERT INTO message_recipients (id, message_id, account_id, email, kind, status) VALUES ($3, $1, $2, 'r@example.net', 'to', 'delivered') RETURNING id::text",
    id === undefined ? [messageId, accountId] : [messageId, accountId, id],
  );
  const rid = rows[0]!.id;
  await q.query("INSERT INTO delivery_attempts (recipient_id, message_id, account_id, outcome) VALUES ($1, $2, $3, 'delivered')", [rid, messageId, accountId]);
  await q.query("INSERT INTO engagement_windows (recipient_id, kind, link_key, window_start) VALUES ($1, 'opened', '', now())", [rid]);
  return rid;
}

const countOf = async (q: pg.Pool, table: string, column: string, ids: string[]) =>
  (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = ANY($1::bigint[])`, [ids])).rows[0]!.n;

/** The rows of the three tables naming these recipients: [recipients, attempts, windows]. */
const rowsOf = async (q: pg.Pool, ids: string[]) => [
  await countOf(q, "message_recipients", "id", ids),
  await countOf(q, "delivery_attempts", "recipient_id", ids),
  await countOf(q, "engagement_windows", "recipient_id", ids),
];

describe("recipients and their tracking rows partitioned by day", () => {
  let app: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    app = await startTestApp();
    pool = app.ctx.database.pool;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("files a sent message's recipient, its attempt and its open under the recipient's day, and prunes a batch's statement to it", async () => {
    const t = nowSeconds();
    const { apiKey } = await createTestAccount(app.ctx, { name: "ids", domain: "example.com" });
    const messageId = await sendViaApi(app, apiKey, simpleEmail("day@example.net"));
    await waitForEvent(app.ctx, messageId, "delivered", "day@example.net");

    const { rows } = await pool.query<{ id: string }>("SELECT id::text FROM message_recipients WHERE message_id = $1", [messageId]);
    const id = rows[0]!.id;
    expect(BigInt(id) >> 32n).toBe(BigInt(Math.floor(t / DAY)));
    expect(Number(id)).toBeLessThan(Number.MAX_SAFE_INTEGER); // jobs, VERP and tracking tokens carry it as a JavaScript number
    const today = dayOf(t);
    expect(await tableOf(pool, "message_recipients", "id", id)).toEqual([dayTableName("message_recipients", today)]);
    expect(await tableOf(pool, "delivery_attempts", "recipient_id", id)).toEqual([dayTableName("delivery_attempts", today)]);
    await withTransaction(app.ctx.database, (tx) => countEngagement(tx, Number(id), "opened", "", 3600));
    expect(await tableOf(pool, "engagement_windows", "recipient_id", id)).toEqual([dayTableName("engagement_windows", today)]);

    // The round's update names an array of ids and their bounds (lib/storage/round-rows.ts); as a generic
    // prepared plan, the bounds prune it to the batch's day when it starts.
    const client = await pool.connect();
    try {
      await client.query("SET plan_cache_mode = force_generic_plan");
      await client.query(
        "PREPARE batch (bigint[], bigint, bigint) AS UPDATE message_recipients SET attempts = attempts WHERE id = ANY ($1) AND status IN ('queued', 'deferred') AND id BETWEEN $2 AND $3",
      );
      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) EXECUTE batch (ARRAY[${id}]::bigint[], ${id}, ${id})`)).rows.map(
        (r) => r["QUERY PLAN"],
      );
      // Only scans count: PostgreSQL 15 lists every partition as a result relation, pruned or not.
      const scanned = plan.filter((line) => / Scan /.test(line)).map((line) => / on (\w+)/.exec(line)?.[1]);
      expect(scanned).toEqual([dayTableName("message_recipients", today)]);
      expect(plan.join("\n")).toMatch(/Subplans Removed: \d+/);
    } finally {
      await client.query("DEALLOCATE batch"); // only ours: the pool's client keeps the app's named statements
      await client.query("RESET plan_cache_mode");
      client.release();
    }
  });

  it("drops a past day once its recipients are gone, with its attempts' and windows' tables; keeps a day that has one", async () => {
    const t = nowSeconds();
    const { accountId } = await createTestAccount(app.ctx, { name: "drop", domain: "drop.test" });
    const yesterday = dayOf(t) - DAY;
    const rid = await recipientWithTracking(pool, accountId, crypto.randomUUID(), (BigInt(firstIdOfDay(yesterday)) + 5n).toString());
    expect(await tableOf(pool, "delivery_attempts", "recipient_id", rid)).toEqual([dayTableName("delivery_attempts", yesterday)]);
    // A tracking table left detached by a run that failed half-way goes too.
    await pool.query(`ALTER TABLE delivery_attempts DETACH PARTITION ${dayTableName("delivery_attempts", dayOf(t) + DAY)}`);

    // Six days on, today and the days around it are past the two kept days; only the ones with a recipient stay.
    const later = new Date((t + 6 * DAY) * 1000);
    const first = await dropEmptyRecipientDays(app.ctx.database, later);
    expect(first.recipientPartitionsDropped).toBeGreaterThanOrEqual(3);
    for (const table of TABLES) {
      const names = (await listDayPartitions(app.ctx.database, table)).map((p) => p.name);
      expect(names).toContain(dayTableName(table, yesterday));
      expect(names).not.toContain(dayTableName(table, yesterday - DAY));
      expect(names).not.toContain(dayTableName(table, dayOf(t) + DAY));
      expect(names).toContain(dayTableName(table, dayOf(t) + 5 * DAY)); // within the two days behind the later now
    }
    expect((await pool.query("SELECT to_regclass($1) AS t", [dayTableName("delivery_attempts", dayOf(t) + DAY)])).rows[0].t).toBeNull();
    expect(await rowsOf(pool, [rid])).toEqual([1, 1, 1]);

    // Its recipient goes (the retention purge deletes a message with its recipients; the tracking rows' keys cascade), then its day goes whole.
    await pool.query("DELETE FROM message_recipients WHERE id = $1", [rid]);
    expect(await rowsOf(pool, [rid])).toEqual([0, 0, 0]);
    await dropEmptyRecipientDays(app.ctx.database, later);
    for (const table of TABLES) {
      expect((await listDayPartitions(app.ctx.database, table)).map((p) => p.name)).not.toContain(dayTableName(table, yesterday));
    }
  });
});

describe("upgrade of unpartitioned recipients, attempts and engagement windows", () => {
  let url: string;

  beforeAll(async () => {
    url = await createEmptyTestDatabase();
  });

  it("keeps every row under its id with its keys; new ids carry their day; the keys still cascade; the legacy tables go once emptied", async () => {
    const database = openDatabase(url, { max: 2 });
    const pool = database.pool;
    const t = nowSeconds();
    try {
      await migrate(pool, { before: "0994" });
      const accountId = (await pool.query<{ id: string }>("INSERT INTO accounts (name, plan, webhook_signing_key) VALUES ('up', 'unlimited', 'k') RETURNING id")).rows[0]!.id;
      const oldMessage = crypto.randomUUID();
      const old: string[] = [];
      await pool.query(
        "INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content) VALUES ($1, $2, 'a@up.test', 'up.test', 's', '{}', '{}')",
        [oldMessage, accountId],
      );
      for (let i = 0; i < 3; i++) {
        const { rows } = await pool.query<{ id: string }>(
          "INSERT INTO message_recipients (message_id, account_id, email, kind, status) VALUES ($1, $2, $3, 'to', 'delivered') RETURNING id::text",
          [oldMessage, accountId, `r${i}@example.net`],
        );
        await pool.query("INSERT INTO delivery_attempts (recipient_id, message_id, account_id, outcome) VALUES ($1, $2, $3, 'delivered')", [rows[0]!.id, oldMessage, accountId]);
        await pool.query("INSERT INTO engagement_windows (recipient_id, kind, link_key, window_start) VALUES ($1, 'clicked', 'k', now())", [rows[0]!.id]);
        old.push(rows[0]!.id);
      }

      // Up to the recipients' partitioning; messages' own (1000–1002) is message-partitions.test.ts's.
      const applied = await migrate(pool, { before: "1000" });
      expect(applied).toEqual([
        "0994_recipients_cutover_check.sql",
        "0995_recipients_cutover_validate.sql",
        "0996_message_recipients_partitioned_by_day.sql",
        "0997_recipient_keys_validate.sql",
        "0998_recipient_tracking_partitioned_by_day.sql",
      ]);
      for (const table of TABLES) {
        expect((await pool.query("SELECT relkind FROM pg_class WHERE relname = $1", [table])).rows[0].relkind).toBe("p");
      }
      expect((await pool.query<{ id: string }>("SELECT id::text FROM message_recipients ORDER BY id")).rows.map((r) => r.id)).toEqual(old);
      expect(await rowsOf(pool, old)).toEqual([3, 3, 3]);
      // The legacy tables' keys and indexes were adopted; the tracking rows' keys name the new parent, validated.
      const indexes = await pool.query<{ n: string }>("SELECT indexname AS n FROM pg_indexes WHERE tablename LIKE '%\\_legacy' ORDER BY 1");
      expect(indexes.rows.map((r) => r.n)).toEqual(
        expect.arrayContaining([
          "delivery_attempts_legacy_message",
          "delivery_attempts_legacy_pkey",
          "engagement_windows_legacy_pkey",
          "message_recipients_legacy_message",
          "message_recipients_legacy_pending",
          "message_recipients_legacy_pkey",
        ]),
      );
      const parentOf = async (index: string) =>
        (await pool.query("SELECT i.inhparent::regclass::text AS p FROM pg_inherits i WHERE i.inhrelid = $1::regclass", [index])).rows[0]?.p;
      expect(await parentOf("message_recipients_legacy_pkey")).toBe("message_recipients_pkey");
      expect(await parentOf("engagement_windows_legacy_pkey")).toBe("engagement_windows_pkey");
      expect(await parentOf("delivery_attempts_legacy_message")).toBe("delivery_attempts_message");
      const fks = await pool.query(
        `SELECT conrelid::regclass::text AS t, confrelid::regclass::text AS r, convalidated AS v FROM pg_constraint
          WHERE contype = 'f' AND conparentid = 0 AND confrelid = 'message_recipients'::regclass ORDER BY 1`,
      );
      expect(fks.rows).toEqual([
        { t: "delivery_attempts", r: "message_recipients", v: true },
        { t: "engagement_windows", r: "message_recipients", v: true },
      ]);
      await expect(
        pool.query("INSERT INTO delivery_attempts (recipient_id, message_id, account_id, outcome) VALUES (424242424242, $1, $2, 'x')", [oldMessage, accountId]),
      ).rejects.toMatchObject({ code: "23503" });

      // A new recipient's id carries today; until the cut-over day it is filed with the legacy rows, after it in its day's tables.
      const cut = Number((await pool.query("SELECT legacy_before FROM day_partition_layouts WHERE parent = 'message_recipients'")).rows[0].legacy_before);
      expect(cut).toBe(dayOf(t + 3600) + DAY);
      for (const table of TABLES) {
        expect(Number((await pool.query("SELECT legacy_before FROM day_partition_layouts WHERE parent = $1", [table])).rows[0].legacy_before)).toBe(cut);
      }
      const newMessage = crypto.randomUUID();
      const fresh = await recipientWithTracking(pool, accountId, newMessage);
      expect(BigInt(fresh) >> 32n).toBe(BigInt(Math.floor(Date.now() / 1000 / DAY)));
      for (const [table, column] of [["message_recipients", "id"], ["delivery_attempts", "recipient_id"], ["engagement_windows", "recipient_id"]] as const) {
        expect(await tableOf(pool, table, column, fresh)).toEqual([`${table}_legacy`]);
      }
      const later = await recipientWithTracking(pool, accountId, newMessage, (BigInt(firstIdOfDay(cut + DAY)) + 7n).toString());
      for (const [table, column] of [["message_recipients", "id"], ["delivery_attempts", "recipient_id"], ["engagement_windows", "recipient_id"]] as const) {
        expect(await tableOf(pool, table, column, later)).toEqual([dayTableName(table, cut + DAY)]);
      }

      // Deleting messages still takes their recipients and tracking rows, in every table; then the legacy tables go.
      await pool.query("DELETE FROM messages WHERE id = ANY($1::uuid[])", [[oldMessage, newMessage]]);
      expect(await rowsOf(pool, [...old, fresh, later])).toEqual([0, 0, 0]);
      const report = await dropEmptyRecipientDays(database, new Date((cut + 5 * DAY) * 1000));
      expect(report.recipientPartitionsDropped).toBeGreaterThanOrEqual(1);
      for (const table of TABLES) {
        expect((await listDayPartitions(database, table)).map((p) => p.name)).not.toContain(`${table}_legacy`);
      }
    } finally {
      await database.close();
    }
  });
});
