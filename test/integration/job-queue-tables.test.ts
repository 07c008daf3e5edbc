import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueTable } from "../../lib/storage/job-rows";
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
});
