import { describe, expect, it } from "vitest";
import { isCheckedForSql, sqlProblems } from "./sql-placement";

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
    expect(isCheckedForSql("lib/domain/send-email.ts")).toBe(true);
    expect(isCheckedForSql("app/(dashboard)/page.tsx")).toBe(true);
    expect(isCheckedForSql("server.ts")).toBe(true);
  });
});
