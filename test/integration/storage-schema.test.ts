import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../lib/storage/schema";
import { createTestDatabase } from "../support/test-database";

/**
 * lib/storage/schema.ts is drizzle's typed view of the tables that the SQL
 * migrations create. The migrations are the source of truth; this test holds
 * the two in step: every table of the migrated database is described, with
 * the same columns, types, nullability and primary key (a partitioned table
 * once: its partitions are its storage, docs/adr/0030).
 */

interface ColumnShape {
  type: string;
  notNull: boolean;
}

// drizzle's SQL type names → information_schema's (format_type) names.
function normaliseDrizzleType(sqlType: string): string {
  const array = sqlType.endsWith("[]");
  const base = array ? sqlType.slice(0, -2) : sqlType;
  const mapped = ({ bigserial: "bigint", serial: "integer", smallserial: "smallint" } as Record<string, string>)[base] ?? base;
  return array ? `${mapped}[]` : mapped;
}

function drizzleTables(): Map<string, { columns: Map<string, ColumnShape>; primaryKey: string[] }> {
  const out = new Map<string, { columns: Map<string, ColumnShape>; primaryKey: string[] }>();
  for (const value of Object.values(schema)) {
    if (!(value instanceof PgTable)) continue;
    const config = getTableConfig(value);
    const columns = new Map<string, ColumnShape>();
    const primaryKey: string[] = [];
    for (const column of config.columns) {
      // A primary-key column is NOT NULL in PostgreSQL whether or not drizzle says so.
      columns.set(column.name, { type: normaliseDrizzleType(column.getSQLType()), notNull: column.notNull || column.primary });
      if (column.primary) primaryKey.push(column.name);
    }
    for (const pk of config.primaryKeys) primaryKey.push(...pk.columns.map((c) => c.name));
    out.set(config.name, { columns, primaryKey: primaryKey.sort() });
  }
  return out;
}

describe("the drizzle schema and the migrated database", () => {
  let client: pg.Client;
  const database = new Map<string, { columns: Map<string, ColumnShape>; primaryKey: string[] }>();

  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase() });
    await client.connect();
    const { rows } = await client.query<{ table_name: string; column_name: string; type: string; not_null: boolean }>(
      `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, NULL) AS type, a.attnotnull AS not_null
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped`,
    );
    for (const row of rows) {
      if (row.table_name === "schema_migrations") continue; // the migrator's own bookkeeping
      const table = database.get(row.table_name) ?? { columns: new Map(), primaryKey: [] };
      table.columns.set(row.column_name, { type: row.type, notNull: row.not_null });
      database.set(row.table_name, table);
    }
    const pks = await client.query<{ table_name: string; column_name: string }>(
      `SELECT c.relname AS table_name, a.attname AS column_name
         FROM pg_index i
         JOIN pg_class c ON c.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
        WHERE n.nspname = 'public' AND i.indisprimary`,
    );
    for (const row of pks.rows) database.get(row.table_name)?.primaryKey.push(row.column_name);
    for (const table of database.values()) table.primaryKey.sort();
  });

  afterAll(async () => {
    await client?.end();
  });

  it("describes every table of the database, and no other", () => {
    expect([...drizzleTables().keys()].sort()).toEqual([...database.keys()].sort());
  });

  it("gives every table the same columns, types, nullability and primary key", () => {
    for (const [name, described] of drizzleTables()) {
      const actual = database.get(name);
      if (!actual) continue; // reported by the test above
      expect({ table: name, columns: Object.fromEntries(described.columns) }).toEqual({
        table: name,
        columns: Object.fromEntries(actual.columns),
      });
      expect({ table: name, primaryKey: described.primaryKey }).toEqual({ table: name, primaryKey: actual.primaryKey });
    }
  });
});
