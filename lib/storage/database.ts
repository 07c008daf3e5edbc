import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema";

// int8 (bigserial ids, counts, Unix seconds) as JS numbers: every value we
// store in one stays far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export type Schema = typeof schema;
export type Db = NodePgDatabase<Schema>;
/** A drizzle handle inside a transaction (same query surface). */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  url: string;
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

export function openDatabase(url: string, options: { max?: number; applicationName?: string } = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName ?? "mailroom",
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that loses its connection (server restart) must not crash
  // the process; the pool replaces it on next use.
  pool.on("error", () => {});
  const db = drizzle(pool, { schema });
  return {
    url,
    pool,
    db,
    close: () => pool.end(),
  };
}
