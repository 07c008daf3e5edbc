import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeJobs, queueTable } from "../../lib/storage/job-rows";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The fetch and complete of every job loop name the queue's own table
 * (lib/storage/job-rows.ts, queueTable): pg-boss's name for it must stay the
 * one computed there, for every queue the app creates.
 */
describe("each queue's job table", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("is the partition pg-boss made for the queue, under the name the hot statements use", async () => {
    const { rows } = await app.ctx.database.pool.query<{ name: string; table: string }>(
      `SELECT q.name, 'pgboss."' || c.relname || '"' AS table
         FROM pgboss.queue q JOIN pg_class c ON c.relname = q.partition_name
         JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = 'pgboss.job'::regclass`,
    );
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(["deliver", "notify", "inbound-post"]));
    for (const { name, table } of rows) expect(queueTable(name), name).toBe(table);
  });

  it("completes jobs through the key's index in the generic plan while the queue's table has no statistics, however many jobs it holds", async (t) => {
    const { pool } = app.ctx.database;
    // PostgreSQL 15's generic plan is the bitmap scan of the whole queue for either form then (measured); 18's, the embedded one's, is not.
    const version = (await pool.query<{ v: number }>("SELECT current_setting('server_version_num')::int AS v")).rows[0]!.v;
    if (version < 180000) t.skip();
    // A queue of its own: its table is new, never analyzed (as every queue's is on a new install).
    const queue = `plan-check-${process.pid}-${Date.now()}`;
    await app.ctx.boss.createQueue(queue);
    let complete = "";
    await completeJobs({ executeSql: async (text: string) => void (complete = text) } as never, queue, ["x"]);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(`INSERT INTO pgboss.job (name, state, data) SELECT $1, 'completed', '{}' FROM generate_series(1, 3000)`, [queue]);
      await client.query(`PREPARE complete_jobs (uuid[]) AS ${complete}`);
      await client.query("SET LOCAL plan_cache_mode = force_generic_plan");
      const plan = (await client.query<{ "QUERY PLAN": string }>("EXPLAIN EXECUTE complete_jobs ('{00000000-0000-0000-0000-000000000001}')")).rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).toContain(`Index Cond: ((name = '${queue}'::text) AND (id = ANY ($1)))`);
      expect(plan).not.toMatch(/Bitmap|Seq Scan/);
    } finally {
      await client.query("ROLLBACK").catch(() => {});
      await client.query("DEALLOCATE ALL").catch(() => {});
      client.release();
      await app.ctx.boss.deleteQueue(queue);
    }
  });
});
