import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorkers, type RunningWorkers } from "../../lib/workers/start-workers";
import { createTestAccount } from "../support/fixtures";
import { deliverJobHasMessage, eventsOf, expectNoRecipientLeftQueued, sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * A deliver job carries the messages of one acceptance transaction
 * (docs/adr/0024). Each message records its own round; the job completes
 * once every one has, and a job retried after one of them threw sends only
 * what is not final yet.
 */
describe("packed deliver jobs", () => {
  let app: TestApp;
  let workers: RunningWorkers | undefined;
  beforeAll(async () => {
    // No workers while a test accepts its messages: it writes the jobs it wants, then starts the delivery loop.
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
  });
  // Each test stops its delivery loop: one still running would work the next test's messages' own
  // jobs before they are removed, and such a job still sending when its row is deleted races the
  // packed one for the same recipient, two live jobs that may both send it (at least once, docs/adr/0301).
  afterEach(async () => {
    await workers?.stop();
    workers = undefined;
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx, 0);
    await app?.stop();
  });
  const startDelivery = async () => {
    workers = await startWorkers(app.ctx, { workers: true, inbound: false, notifications: false, maintenance: false });
  };

  const pool = () => app.ctx.database.pool;
  /** Messages accepted through the API, their own jobs removed before any worker took them: the test enqueues them packed. */
  const acceptWithoutJobs = async (apiKey: string, recipients: string[]) => {
    const ids: string[] = [];
    for (const to of recipients) ids.push(await sendViaApi(app, apiKey, simpleEmail([to])));
    const entries = [];
    for (const messageId of ids) {
      const removed = await pool().query<{ state: string }>(`DELETE FROM pgboss.job WHERE name = 'deliver' AND ${deliverJobHasMessage("$1")} RETURNING state`, [
        messageId,
      ]);
      // A job a worker had fetched may be sending its copy still: the packed job could send it a second time.
      expect(removed.rows.filter((r) => r.state !== "created"), "the message's own job was never fetched").toEqual([]);
      const { rows } = await pool().query<{ id: string }>("SELECT id FROM message_recipients WHERE message_id = $1", [messageId]);
      entries.push({ messageId, recipientIds: rows.map((r) => Number(r.id)) });
    }
    return { ids, entries };
  };
  const jobState = async (id: string) => (await pool().query<{ state: string }>("SELECT state FROM pgboss.job WHERE id = $1", [id])).rows[0]?.state;
  const captures = async (messageId: string) =>
    (await pool().query<{ n: number }>("SELECT count(*)::int AS n FROM sandbox_messages WHERE mailroom_message_id = $1", [messageId])).rows[0]!.n;
  const types = async (messageId: string) => (await eventsOf(app.ctx, messageId)).map((e) => e.type);

  it("delivers each message of a packed job, fails alone one that cannot be built, and completes the job once all are recorded", async () => {
    const { apiKey } = await createTestAccount(app.ctx, { name: "Packed" });
    const { ids, entries } = await acceptWithoutJobs(apiKey, ["a1@example.org", "a2@example.net", "a3@example.org"]);
    // The second one's stored content no longer parses: its round is `failed`, the others go out.
    await pool().query(`UPDATE messages SET content = '"unreadable"'::jsonb WHERE id = $1`, [ids[1]]);
    const jobId = (await app.ctx.boss.send("deliver", { messages: entries }))!;

    await startDelivery();
    await waitForEvent(app.ctx, ids[0]!, "delivered", "a1@example.org");
    await waitForEvent(app.ctx, ids[2]!, "delivered", "a3@example.org");
    const failed = await waitForEvent(app.ctx, ids[1]!, "failed", "a2@example.net");
    expect(failed.details).toMatchObject({ enhancedCode: "5.6.0", diagnostic: "The stored message could not be built" });
    expect(await waitFor("the packed job completed", async () => ((await jobState(jobId)) === "completed" ? true : undefined))).toBe(true);
    for (const id of [ids[0]!, ids[2]!]) {
      expect(await captures(id)).toBe(1);
      expect(await types(id)).toEqual(["accepted", "delivered"]);
    }
    expect(await captures(ids[1]!)).toBe(0);
  });

  it("retries a packed job whose message threw while recording, and the retry sends only what is not final", async () => {
    const { apiKey } = await createTestAccount(app.ctx, { name: "Packed retry" });
    // Recording boom@'s outcome throws while the block row exists (a database error for that one message).
    await pool().query(`
      CREATE TABLE IF NOT EXISTS test_boom_block (x int);
      INSERT INTO test_boom_block VALUES (1);
      CREATE OR REPLACE FUNCTION test_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.email = 'boom@example.org' AND NEW.status <> 'queued' AND EXISTS (SELECT 1 FROM test_boom_block) THEN
          RAISE EXCEPTION 'boom' USING ERRCODE = '22023';
        END IF;
        RETURN NEW;
      END $$;
      CREATE OR REPLACE TRIGGER test_boom BEFORE UPDATE ON message_recipients FOR EACH ROW EXECUTE FUNCTION test_boom();`);
    try {
      const { ids, entries } = await acceptWithoutJobs(apiKey, ["fine@example.org", "boom@example.org"]);
      const jobId = (await app.ctx.boss.send("deliver", { messages: entries }))!;
      await startDelivery();

      await waitForEvent(app.ctx, ids[0]!, "delivered", "fine@example.org");
      // The job failed (pg-boss retries it) only once every message of it had settled.
      expect(await waitFor("the packed job failed once", async () => ((await jobState(jobId)) === "retry" ? true : undefined), 15_000)).toBe(true);
      await pool().query("DELETE FROM test_boom_block");

      await waitForEvent(app.ctx, ids[1]!, "delivered", "boom@example.org");
      expect(await waitFor("the retried job completed", async () => ((await jobState(jobId)) === "completed" ? true : undefined), 15_000)).toBe(true);
      // The retry did not send the message already delivered again.
      expect(await captures(ids[0]!)).toBe(1);
      expect(await types(ids[0]!)).toEqual(["accepted", "delivered"]);
      expect(await types(ids[1]!)).toEqual(["accepted", "delivered"]);
    } finally {
      await pool().query("DROP TRIGGER IF EXISTS test_boom ON message_recipients; DROP FUNCTION IF EXISTS test_boom(); DROP TABLE IF EXISTS test_boom_block");
    }
  });
});
