import fs from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { longStatement, type Database, type Queryable } from "./database";
import { inTransactionOn } from "./transaction";

/**
 * Applies lib/storage/migrations/*.sql in name order, each in its own
 * transaction, under an advisory lock so that several processes starting
 * together are safe. Applied names are kept in schema_migrations. No
 * statement here has the pool's query timeout: a migration of a large table,
 * or the wait for another process's, may take minutes (docs/adr/0514).
 */

const MIGRATION_LOCK_ID = 727_001; // arbitrary, stable
const migrationsDir = fileURLToPath(new URL("./migrations/", import.meta.url));

export async function listMigrations(): Promise<{ name: string; sql: string }[]> {
  const names = (await fs.readdir(migrationsDir)).filter((n) => n.endsWith(".sql")).sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await fs.readFile(migrationsDir + name, "utf8") })));
}

/**
 * `before` stops at the first migration named at or after it: an earlier
 * shape of the schema, for tests of an upgrade (test/integration/event-partitions.test.ts).
 */
export async function migrate(target: Database | pg.Pool, options: { before?: string } = {}): Promise<string[]> {
  const { before } = options;
  const pool = "url" in target ? target.pool : target;
  const migrations = (await listMigrations()).filter((m) => before === undefined || m.name < before);
  const client = await pool.connect();
  const run = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => client.query<R>(longStatement(text, values));
  const applied: string[] = [];
  const onError = () => {}; // the next query reports it (see transaction.ts)
  client.on("error", onError);
  try {
    await run("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await run(
      "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const done = new Set((await run<{ name: string }>("SELECT name FROM schema_migrations")).rows.map((r) => r.name));
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      try {
        await inTransactionOn({ query: (text) => run(text) }, async () => {
          await run(m.sql);
          await run("INSERT INTO schema_migrations (name) VALUES ($1)", [m.name]);
        });
        applied.push(m.name);
      } catch (err) {
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await run("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => {});
    client.removeListener("error", onError);
    client.release();
  }
  return applied;
}

/** True when every migration file has been applied (used by /readyz). */
// eslint-disable-next-line no-restricted-syntax -- a memo of the migration files shipped with the code
let migrationCount: number | undefined;

export async function isMigrated(q: Queryable): Promise<boolean> {
  migrationCount ??= (await listMigrations()).length;
  try {
    const { rows } = await q.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
    return (rows[0]?.n ?? 0) >= migrationCount;
  } catch {
    return false;
  }
}
