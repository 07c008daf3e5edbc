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

/**
 * The one way code reaches the data (docs/adr/0038): the pool (`Database`,
 * each statement on its own connection) or a transaction (`Tx`, all on one).
 * lib/storage row modules take a `Queryable` and hold every SQL text; a use
 * case takes a `Database` and opens its own transaction with
 * `withTransaction`, or takes the caller's `Tx`.
 */
export interface Queryable {
  /** drizzle on the same connection(s), for the typed query builder. */
  readonly db: Db;
  /** Raw SQL: text and values, or a config with a name (a prepared statement). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface Database extends Queryable {
  url: string;
  pool: pg.Pool;
  close(): Promise<void>;
}

/** A `Database` on a pool opened elsewhere (its own settings: a replica's, the dispatcher's asynchronous commits). */
export function databaseOnPool(url: string, pool: pg.Pool): Database {
  const db = drizzle(pool, { schema });
  return {
    url,
    pool,
    db,
    query: (text, values) => pool.query(text as string, values),
    close: () => pool.end(),
  };
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
  return databaseOnPool(url, pool);
}
