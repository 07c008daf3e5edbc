import type { ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle, type NodePgQueryResultHKT } from "drizzle-orm/node-postgres";
import type { PgDatabase } from "drizzle-orm/pg-core";
import pg from "pg";
import * as schema from "./schema";

// int8 (bigserial ids, counts, Unix seconds) as JS numbers: every value we
// store in one stays far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export type Schema = typeof schema;
/**
 * A drizzle handle: the pool's, or a transaction's (`db.transaction(tx => ...)`,
 * Tx.db of withTransaction). Both have the same query surface, so a use case
 * taking a Db runs inside or outside a transaction without a cast.
 */
export type Db = PgDatabase<NodePgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface Database {
  url: string;
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

export function openDatabase(url: string, options: { max?: number; applicationName?: string; connectionTimeoutMillis?: number } = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName ?? "mailroom",
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
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
