import type { ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle, type NodePgQueryResultHKT } from "drizzle-orm/node-postgres";
import type { PgDatabase } from "drizzle-orm/pg-core";
import pg from "pg";
import * as schema from "./schema";

// int8 (bigserial ids, counts, Unix seconds) as JS numbers: every value we
// store in one stays far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export type Schema = typeof schema;
/** drizzle on the pool or on a transaction's connection: the `db` of a `Queryable`, never passed on its own. */
export type Db = PgDatabase<NodePgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

/**
 * The one way code reaches the data (docs/adr/0038): the pool (`Database`,
 * each statement on its own connection) or a transaction (`Tx`, all on one).
 * lib/storage row modules take a `Queryable` and hold every SQL text; a use
 * case takes a `Database` and opens its own transaction with
 * `withTransaction`, or takes the caller's `Tx`.
 */
export interface Queryable {
  /** drizzle on the same connection(s), for the typed query builder: read only by lib/storage's row modules (docs/adr/0038). */
  readonly db: Db;
  /** Raw SQL: text and values, or a config with a name (a prepared statement). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface Database extends Queryable {
  url: string;
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  max?: number;
  applicationName?: string;
  connectionTimeoutMillis?: number;
  /**
   * How long a statement waits for its answer before it fails as "unavailable" and its
   * connection is dropped (docs/adr/0514); 0 or absent, for ever. The statements known to
   * run long say so with `longStatement`.
   */
  queryTimeoutMillis?: number;
  /** Commits that do not wait for the WAL flush: only for writes whose loss in a crash means work done again. */
  asynchronousCommit?: boolean;
}

/** The longest a statement marked `longStatement` waits (Node's timer limit, about 24 days): in effect, for ever. */
const LONG_STATEMENT_TIMEOUT = 2 ** 31 - 1;

/**
 * A statement that may legitimately run for minutes (a migration, a first roll-up of
 * millions of events), exempt from the pool's query timeout: pg takes the per-query
 * `query_timeout` over the pool's. (The maintenance jobs have a pool without one.)
 */
export function longStatement(text: string, values?: unknown[]): pg.QueryConfig {
  return { text, values, query_timeout: LONG_STATEMENT_TIMEOUT } as pg.QueryConfig;
}

/**
 * The error pg raises when a statement outlived the query timeout (drizzle wraps it as the
 * cause of its own); its connection must not be reused.
 */
export function isQueryTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.message === "Query read timeout") return true;
  }
  return false;
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName ?? "mailroom",
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
    // A server that went away without a word (a host gone, a partition) shows on an idle connection too.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.queryTimeoutMillis ? { query_timeout: options.queryTimeoutMillis } : {}),
    ...(options.asynchronousCommit ? { options: "-c synchronous_commit=off" } : {}),
  });
  // An idle client that loses its connection (server restart) must not crash
  // the process; the pool replaces it on next use.
  pool.on("error", () => {});
  return {
    url,
    pool,
    db: drizzle(pool, { schema }),
    query: (text, values) => pool.query(text as string, values),
    close: () => pool.end(),
  };
}
