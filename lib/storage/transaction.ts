import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { isQueryTimeout, type Database, type Db, type Queryable } from "./database";
import * as schema from "./schema";

/**
 * A unit of work on one connection. `db` is drizzle on that connection;
 * `sql` runs raw SQL on it (pg-boss's `db` option takes it, so jobs are
 * enqueued in the same transaction as the rows they refer to).
 */
export interface Tx extends Queryable {
  client: pg.PoolClient;
  sql: { executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };
}

/** A connection a transaction runs on: a pooled client, a lease keeper's own, the migrator's. */
export type TransactionConnection = { query(text: string): Promise<unknown> };

/**
 * BEGIN, `work`, COMMIT on one connection; ROLLBACK when anything throws, the
 * error rethrown. Every transaction of the code starts here (docs/adr/0038):
 * withTransaction, the partition mover's inTransactionWithLockTimeout, the
 * lease keeper's and the migrator's. `settings` run first (SET LOCAL …).
 * `unusable` is told when the connection must not be reused: a statement that
 * timed out is still in flight on it (a ROLLBACK would queue behind it), or
 * the ROLLBACK itself failed.
 */
export async function inTransactionOn<T>(
  client: TransactionConnection,
  work: () => Promise<T>,
  options: { settings?: readonly string[]; unusable?: () => void } = {},
): Promise<T> {
  try {
    await client.query("BEGIN");
    for (const setting of options.settings ?? []) await client.query(setting);
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (err) {
    if (isQueryTimeout(err)) options.unusable?.();
    else await client.query("ROLLBACK").catch(() => options.unusable?.());
    throw err;
  }
}

export async function withTransaction<T>(database: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await database.pool.connect();
  let broken = false;
  // A checked-out pg client has no error listener: if its connection dies
  // between queries (database restart) the 'error' event would crash the
  // process. The next query fails instead, and the client is discarded.
  const onError = () => {
    broken = true;
  };
  client.on("error", onError);
  let db: Db | undefined;
  const tx: Tx = {
    // Built on first use: the hot paths use `client` directly.
    get db() {
      db ??= drizzle(client, { schema });
      return db;
    },
    client,
    query: (text, values) => client.query(text as string, values),
    sql: { executeSql: (text, values) => client.query(text, values as unknown[]) },
  };
  try {
    return await inTransactionOn(client, () => work(tx), { unusable: onError });
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}
