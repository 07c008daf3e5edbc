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
  try {
    await client.query("BEGIN");
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
    const result = await work(tx);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    // A statement that timed out is still in flight on this connection: a ROLLBACK would queue behind it.
    if (isQueryTimeout(err)) broken = true;
    else
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
    throw err;
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}
