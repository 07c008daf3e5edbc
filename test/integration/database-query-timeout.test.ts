import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isQueryTimeout, longStatement, openDatabase, type Database } from "../../lib/storage/database";
import { migrate } from "../../lib/storage/migrate";
import { withTransaction } from "../../lib/storage/transaction";
import { isDatabaseUnavailable } from "../../lib/storage/unavailable";
import { createTestDatabase } from "../support/test-database";

/**
 * The pool's query timeout (MAILROOM_DB_QUERY_TIMEOUT, docs/adr/0514): a
 * statement past it fails as an outage and its connection is dropped, never
 * handed out again with the statement still in flight; the statements known
 * to run long (`longStatement`, migrations) are exempt.
 */
describe("the database pool's query timeout", () => {
  let database: Database;

  beforeAll(async () => {
    database = openDatabase(await createTestDatabase(), { max: 2, queryTimeoutMillis: 200 });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("fails a statement past it as unavailable and drops its connection", async () => {
    const err = await database.query("SELECT pg_sleep(1)").catch((e: unknown) => e);
    expect(isQueryTimeout(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(true);
    // Both connections answer at once afterwards: the one with the sleep in flight was not reused.
    const started = Date.now();
    await Promise.all([database.query("SELECT 1"), database.query("SELECT 1")]);
    expect(Date.now() - started).toBeLessThan(150);
  });

  it("drops a transaction's connection without a ROLLBACK queued behind the stuck statement", async () => {
    const started = Date.now();
    const err = await withTransaction(database, (tx) => tx.query("SELECT pg_sleep(1)")).catch((e: unknown) => e);
    expect(isQueryTimeout(err)).toBe(true);
    // Answered at the timeout, not after the sleep plus a second timeout for the ROLLBACK.
    expect(Date.now() - started).toBeLessThan(900);
    expect((await withTransaction(database, (tx) => tx.query<{ n: number }>("SELECT 2 AS n"))).rows[0]!.n).toBe(2);
  });

  it("knows the timeout through drizzle, which wraps pg's error as its cause", async () => {
    const started = Date.now();
    const err = await withTransaction(database, (tx) => tx.db.execute(sql`SELECT pg_sleep(1)`)).catch((e: unknown) => e);
    expect((err as Error).message).not.toBe("Query read timeout");
    expect(isQueryTimeout(err)).toBe(true);
    expect(Date.now() - started).toBeLessThan(900);
    expect((await withTransaction(database, (tx) => tx.query<{ n: number }>("SELECT 3 AS n"))).rows[0]!.n).toBe(3);
  });

  it("lets a long statement and a migration run past it", async () => {
    await expect(database.query(longStatement("SELECT pg_sleep(0.4)"))).resolves.toBeDefined();
    // Another process holds the migration lock for longer than the timeout: migrate waits for it, then finds nothing to do.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(727001)");
      const released = new Promise((r) => setTimeout(r, 500)).then(() => holder.query("SELECT pg_advisory_unlock(727001)"));
      const started = Date.now();
      await expect(migrate(database)).resolves.toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      await released;
    } finally {
      await holder.end();
    }
  });
});
