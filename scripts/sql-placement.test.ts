import { describe, expect, it } from "vitest";
import { beginProblems, builderProblems, isCheckedForSql, isCheckedForTransactions, sqlProblems } from "./sql-placement";

describe("SQL placement", () => {
  it("finds statements and sql fragments outside lib/storage", () => {
    const source = [
      'const a = "SELECT 1";',
      "const b = `UPDATE messages SET status = $1`;",
      "const c = sql`now()`;",
      "const d = `WITH x AS (SELECT 1) SELECT * FROM x WHERE id = ${id}`;",
      'const e = "Select a file to upload";',
      'const f = "select";',
      'const g = "update the webhook";',
      'const h = "Create template";',
      'const i = "truncate px-3";',
    ].join("\n");
    expect(sqlProblems("lib/domain/x.ts", source).map((p) => p.line)).toEqual([1, 2, 3, 4]);
  });

  it("leaves lib/storage, tests and other folders alone", () => {
    expect(isCheckedForSql("lib/storage/event-rows.ts")).toBe(false);
    expect(isCheckedForSql("lib/domain/send-email.test.ts")).toBe(false);
    expect(isCheckedForSql("bench/api.ts")).toBe(false);
    expect(isCheckedForSql("lib/domain/sending/send-email.ts")).toBe(true);
    expect(isCheckedForSql("app/(dashboard)/page.tsx")).toBe(true);
    expect(isCheckedForSql("server.ts")).toBe(true);
  });

  it("finds a transaction begun by hand anywhere but lib/storage/transaction.ts", () => {
    const source = ['await c.query("BEGIN");', "await run(`BEGIN ISOLATION LEVEL SERIALIZABLE`);", 'const x = "Beginning";', 'await c.query("START TRANSACTION");'].join("\n");
    expect(beginProblems("lib/storage/job-lease-rows.ts", source).map((p) => p.line)).toEqual([1, 2, 4]);
    expect(isCheckedForTransactions("lib/storage/job-lease-rows.ts")).toBe(true);
    expect(isCheckedForTransactions("lib/storage/transaction.ts")).toBe(false);
    expect(isCheckedForTransactions("lib/storage/transaction.test.ts")).toBe(false);
  });

  it("finds the query builder outside lib/storage: a drizzle-orm import and a call on a Queryable's db", () => {
    const source = [
      'import { and, eq } from "drizzle-orm";',
      'import type { PgDatabase } from "drizzle-orm/pg-core";',
      'export { sql } from "drizzle-orm";',
      "const [row] = await q.db.select().from(accounts).where(eq(accounts.id, id));",
      "await tx.db",
      "  .insert(webhooks)",
      "  .values(row);",
      "await ctx.database.db.update(accounts).set({ name });",
      "const db = options.db ?? boss.getDb();",
      "await q.query(text, values);",
      'import { accounts } from "../storage/schema";',
      'const drizzle = "drizzle-orm";',
      'type Db = import("drizzle-orm/node-postgres").NodePgDatabase;',
      'const m = await import("drizzle-orm");',
    ].join("\n");
    expect(builderProblems("lib/domain/x.ts", source).map((p) => p.line)).toEqual([1, 2, 3, 4, 5, 8, 13, 14]);
  });
});
