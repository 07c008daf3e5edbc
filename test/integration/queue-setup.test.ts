import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyQueuePolicy, startQueue, type PgBoss } from "../../lib/queue/boss";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Every process sets up the queues it works at start (the worker processes of
 * `npm start` start together). pg-boss's create_queue run at the same moment
 * in two processes deadlocked in PostgreSQL, and the worker process that lost
 * exited and was restarted (seen on a first start, with the maintenance queues).
 */
describe("queue setup by several processes at once", () => {
  let app: TestApp;
  const bosses: PgBoss[] = [];
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off" });
    for (let i = 0; i < 4; i++) bosses.push(await startQueue(app.ctx.database.url, { max: 2 }));
  });
  afterAll(async () => {
    await Promise.all(bosses.map((b) => b.stop({ graceful: false, wait: true })));
    await app?.stop();
  });

  it("creates each new queue once, whichever process gets there first, and none of them fails", async () => {
    const names = Array.from({ length: 6 }, (_, i) => `setup-race-${Date.now()}-${i}`);
    const policy = { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 };
    for (const name of names) {
      const outcomes = await Promise.allSettled(bosses.map((boss) => applyQueuePolicy(boss, name, policy)));
      expect(outcomes.filter((o) => o.status === "rejected").map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    }
    const { rows } = await app.ctx.database.pool.query<{ name: string; retry_limit: number }>(
      "SELECT name, retry_limit FROM pgboss.queue WHERE name = ANY($1) ORDER BY name",
      [names],
    );
    expect(rows).toEqual(names.sort().map((name) => ({ name, retry_limit: 3 })));
  });
});
