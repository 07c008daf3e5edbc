import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../lib/storage/database";
import { DAY, dayTableName } from "../../lib/storage/day-partitions";
import { createGroupCommit } from "../../lib/storage/group-commit";
import { loadInboundRowsForPost, recordFinalInboundAttempts, type FinalInboundAttempt } from "../../lib/storage/inbound-post-batches";
import { findInboundMessage, listInboundAttempts, loadInboundForPost } from "../../lib/storage/inbound-rows";
import { isRowDataError } from "../../lib/storage/sqlstate";
import { createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The posting loop's statements for the posts that run at once
 * (lib/storage/inbound-post-batches.ts, docs/adr/0046): one statement per day
 * table for their rows and one for their final attempts, the one-message path
 * for what a batch does not find, and the posted JSON kept as its text.
 */

const nowSeconds = () => Math.floor(Date.now() / 1000);
const dayOf = (t: number) => t - (t % DAY);

async function messageAt(q: pg.Pool, accountId: string, receivedAt: number): Promise<string> {
  const id = randomUUID();
  await q.query(
    `INSERT INTO inbound_messages (id, account_id, webhook_url, original_recipient, size, raw, received_at, expires_at)
     VALUES ($1, $2, 'http://127.0.0.1:9/in', 'in@example.org', 3, 'abc', to_timestamp($3), to_timestamp($3) + interval '7 days')`,
    [id, accountId, receivedAt],
  );
  return id;
}

const payloadOf = (subject: string) => ({
  payloadJson: Buffer.from(`{"Subject":"${subject}","Z":1,"A":[]}`),
  subject,
  fromEmail: `${subject}@sender.example`,
  repliedToMessageId: null,
});

describe("inbound posts' statements in batches", () => {
  let app: TestApp;
  let pool: pg.Pool;
  const statements: string[] = [];
  let recording: Queryable;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    pool = app.ctx.database.pool;
    recording = {
      db: app.ctx.database.db,
      query: (text, values) => {
        statements.push(typeof text === "string" ? text : text.text);
        return app.ctx.database.query(text, values);
      },
    };
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("loads the rows of several posts with one statement on their day table, the others one by one, in order", async () => {
    const { accountId } = await createTestAccount(app.ctx, { name: "batch-load", domain: "batch-load.test" });
    const t = nowSeconds();
    const far = t + 900 * DAY; // no day table: in the default table
    const [a, b, stray] = [await messageAt(pool, accountId, t), await messageAt(pool, accountId, t), await messageAt(pool, accountId, far)];
    const gone = randomUUID();
    const today = new Date(t * 1000);
    statements.length = 0;
    const rows = await loadInboundRowsForPost(recording, [
      { id: b, receivedAt: today },
      { id: gone, receivedAt: today },
      { id: stray, receivedAt: new Date(far * 1000) },
      { id: a, receivedAt: today },
      { id: a }, // a job of an older version: no day
    ]);
    expect(rows.map((r) => r?.id)).toEqual([b, undefined, stray, a, a]);
    expect(rows[0]).toMatchObject({ account_id: accountId, raw: Buffer.from("abc"), payload: null, status: "pending" });
    expect(rows[0]!.signing_key).toMatch(/^whsec_/);
    // Today's three in one statement, the stray day's table tried (it does not exist); then the parent
    // alone for the three not found there (the dayless, the gone, the stray), not their day tables again.
    expect(statements.map((s) => s.match(/FROM ("?inbound_messages\w*"?) m/)?.[1])).toEqual([
      `"${dayTableName("inbound_messages", dayOf(t))}"`,
      `"${dayTableName("inbound_messages", dayOf(far))}"`,
      "inbound_messages",
      "inbound_messages",
      "inbound_messages",
    ]);
    expect(statements[0]).toContain("= ANY($1::uuid[])");
  });

  it("records the final attempts of several posts in one statement: the JSON of a first post kept as posted, a message gone skipped", async () => {
    const { accountId } = await createTestAccount(app.ctx, { name: "batch-record", domain: "batch-record.test" });
    const t = nowSeconds();
    const today = new Date(t * 1000);
    const far = t + 900 * DAY;
    const [first, retried, stray, twice] = [await messageAt(pool, accountId, t), await messageAt(pool, accountId, t), await messageAt(pool, accountId, far), await messageAt(pool, accountId, t)];
    await pool.query("UPDATE inbound_messages SET subject = 'kept', attempts = 1 WHERE id = $1", [retried]);
    const gone = randomUUID();
    const attempt = { startedAt: new Date(), durationMs: 12.4, statusCode: 200, body: "ok" };
    const items: FinalInboundAttempt[] = [
      { key: { id: first, receivedAt: today }, attempt, status: "delivered", payload: payloadOf("first") },
      { key: { id: retried, receivedAt: today }, attempt: { ...attempt, statusCode: 406, error: "406: receiver refused, not retried" }, status: "failed" },
      { key: { id: gone, receivedAt: today }, attempt, status: "delivered", payload: payloadOf("gone") },
      { key: { id: stray, receivedAt: new Date(far * 1000) }, attempt, status: "delivered", payload: payloadOf("stray") },
      { key: { id: twice, receivedAt: today }, attempt, status: "delivered" },
      { key: { id: twice, receivedAt: today }, attempt, status: "delivered" },
    ];
    statements.length = 0;
    await recordFinalInboundAttempts(recording, items);
    // One statement for today's four messages (the second of `twice` recorded alone after); the stray day's
    // table tried, missing (the stray recorded alone after).
    const batches = statements.filter((s) => s.startsWith("WITH v ")).map((s) => [s.match(/UPDATE ("inbound_messages_\w+")/)?.[1], s.match(/\$\d+::uuid\)/g)?.length]);
    expect(batches).toEqual([
      [`"${dayTableName("inbound_messages", dayOf(t))}"`, 4],
      [`"${dayTableName("inbound_messages", dayOf(far))}"`, 1],
    ]);

    const read = async (id: string) => (await findInboundMessage(app.ctx.database, accountId, id))!;
    // Stored as the bytes posted: key order and spacing as they were (jsonb would have reordered them).
    expect(await read(first)).toMatchObject({ status: "delivered", attempts: 1, subject: "first", from_email: "first@sender.example", payload: '{"Subject":"first","Z":1,"A":[]}' });
    expect(await read(retried)).toMatchObject({ status: "failed", attempts: 2, subject: "kept", payload: null });
    expect(await read(stray)).toMatchObject({ status: "delivered", attempts: 1, payload: '{"Subject":"stray","Z":1,"A":[]}' });
    // Twice in one batch: both recorded, as two jobs of one attempt would be (one statement would update it once).
    expect(await read(twice)).toMatchObject({ attempts: 2 });
    expect((await listInboundAttempts(app.ctx.database, first)).map((a) => [a.status_code, a.body, a.duration_ms])).toEqual([[200, "ok", 12]]);
    expect((await listInboundAttempts(app.ctx.database, retried)).map((a) => [a.status_code, a.error])).toEqual([[406, "406: receiver refused, not retried"]]);
    expect(await listInboundAttempts(app.ctx.database, gone)).toEqual([]);
  });

  it("a JSON the database refuses fails the batch; written one by one, that post is recorded without it and the others with theirs", async () => {
    const { accountId } = await createTestAccount(app.ctx, { name: "batch-refuse", domain: "batch-refuse.test" });
    const t = nowSeconds();
    const today = new Date(t * 1000);
    const ids = [await messageAt(pool, accountId, t), await messageAt(pool, accountId, t), await messageAt(pool, accountId, t)];
    await pool.query("ALTER TABLE inbound_messages ADD CONSTRAINT test_batch_refuse CHECK (payload_text IS NULL OR payload_text NOT LIKE '%refuse me%')");
    try {
      const attempt = { startedAt: new Date(), durationMs: 3, statusCode: 200, body: "ok" };
      const items: FinalInboundAttempt[] = ids.map((id, i) => ({ key: { id, receivedAt: today }, attempt, status: "delivered", payload: payloadOf(i === 1 ? "refuse me" : `fine ${i}`) }));
      await expect(recordFinalInboundAttempts(app.ctx.database, items)).rejects.toSatisfy(isRowDataError);
      // As the posting loop writes them: its group commit writes the batch, then each alone.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const record = createGroupCommit(
        async (batch: FinalInboundAttempt[]) => {
          if (batch.length === 1 && batch[0] === items[0]) await held; // the first goes alone: the others queue into one batch
          return recordFinalInboundAttempts(app.ctx.database, batch);
        },
        { maxBatch: 16, maxInFlight: 1, isolate: isRowDataError },
      );
      const done = items.map(record);
      release();
      await Promise.all(done);
      const rows = await Promise.all(ids.map((id) => findInboundMessage(app.ctx.database, accountId, id)));
      expect(rows.map((r) => [r!.status, r!.attempts, r!.payload === null])).toEqual([
        ["delivered", 1, false],
        ["delivered", 1, true],
        ["delivered", 1, false],
      ]);
      expect((await listInboundAttempts(app.ctx.database, ids[1]!))[0]!.error).toMatch(/^the posted JSON could not be stored \(.*test_batch_refuse/);
    } finally {
      await pool.query("ALTER TABLE inbound_messages DROP CONSTRAINT test_batch_refuse");
    }
  });

  it("reads the JSON of a message stored before the text column as jsonb's text", async () => {
    const { accountId } = await createTestAccount(app.ctx, { name: "batch-legacy", domain: "batch-legacy.test" });
    const t = nowSeconds();
    const id = await messageAt(pool, accountId, t);
    await pool.query(`UPDATE inbound_messages SET payload = '{"Subject": "old", "A": []}'::jsonb WHERE id = $1`, [id]);
    expect((await findInboundMessage(app.ctx.database, accountId, id))!.payload).toBe('{"A": [], "Subject": "old"}');
    expect((await loadInboundForPost(app.ctx.database, { id, receivedAt: new Date(t * 1000) }))!.payload).toBe('{"A": [], "Subject": "old"}');
    expect((await loadInboundRowsForPost(app.ctx.database, [{ id, receivedAt: new Date(t * 1000) }]))[0]!.payload).toBe('{"A": [], "Subject": "old"}');
  });
});
