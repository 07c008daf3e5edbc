import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every route handler under app/ that the session cookie authenticates is
 * wrapped in sameOriginRoute (docs/adr/0506-same-origin-route-handlers.md):
 * this test reads each route.ts and fails for an exported HTTP method that is
 * anything else, so a route added later without the guard cannot pass.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const GUARD_MODULE = "@/lib/dashboard/route-guard";

/**
 * Not cookie-authenticated by us: Auth.js's own endpoints, which set the
 * cookie. Their POSTs carry Auth.js's CSRF token (double submit) and the
 * single-sign-on callback is a cross-site navigation by design. The file
 * must stay exactly this re-export.
 */
const EXEMPT: Record<string, string> = {
  "app/api/auth/[...nextauth]/route.ts": 'import { handlers } from "@/lib/auth/auth";\n\nexport const { GET, POST } = handlers;\n',
};

function routeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...routeFiles(full));
    else if (/^route\.(ts|tsx|js|jsx|mjs)$/.test(entry.name)) out.push(path.relative(ROOT, full));
  }
  return out.sort();
}

/** The problems of one route module: each exported HTTP method must be `export const M = sameOriginRoute(...)`. */
function unguardedExports(source: string, fileName = "route.ts"): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const problems: string[] = [];
  let guardName: string | undefined;
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text === GUARD_MODULE) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) if ((el.propertyName ?? el.name).text === "sameOriginRoute") guardName = el.name.text;
      }
    }
  }
  const exported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of file.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (!statement.exportClause) problems.push("export * (re-exported handlers cannot be checked)");
      else if (ts.isNamedExports(statement.exportClause)) {
        for (const el of statement.exportClause.elements) if (METHODS.has(el.name.text)) problems.push(`${el.name.text}: exported by name, not as sameOriginRoute(...)`);
      } else problems.push("export * as (re-exported handlers cannot be checked)");
    } else if (ts.isExportAssignment(statement)) {
      problems.push("export default");
    } else if (ts.isFunctionDeclaration(statement) && exported(statement) && statement.name && METHODS.has(statement.name.text)) {
      problems.push(`${statement.name.text}: a function declaration, not sameOriginRoute(...)`);
    } else if (ts.isClassDeclaration(statement) && exported(statement) && statement.name && METHODS.has(statement.name.text)) {
      problems.push(`${statement.name.text}: a class`);
    } else if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const decl of statement.declarationList.declarations) {
        if (!ts.isIdentifier(decl.name)) {
          problems.push("a destructured export (its handlers cannot be checked)");
          continue;
        }
        if (!METHODS.has(decl.name.text)) continue;
        const init = decl.initializer;
        const wrapped = init && ts.isCallExpression(init) && ts.isIdentifier(init.expression) && guardName !== undefined && init.expression.text === guardName;
        if (!wrapped) problems.push(`${decl.name.text}: not sameOriginRoute(...) imported from ${GUARD_MODULE}`);
      }
    }
  }
  return problems;
}

describe("cookie-authenticated route handlers", () => {
  const files = routeFiles(path.join(ROOT, "app"));

  it("finds the route handlers (the walk itself works)", () => {
    expect(files).toContain("app/(dashboard)/a/[account]/compose/send/route.ts");
    expect(files).toContain("app/(dashboard)/a/[account]/events/export/route.ts");
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  it.each(files)("%s is guarded by sameOriginRoute", (file) => {
    const source = readFileSync(path.join(ROOT, file), "utf8");
    if (file in EXEMPT) {
      expect(source, `${file} is exempt only as Auth.js's re-export`).toBe(EXEMPT[file]);
      return;
    }
    expect(unguardedExports(source, file)).toEqual([]);
    // And it exports at least one method (else a handler hides somewhere the check does not see).
    expect(source).toMatch(/export const (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) = /);
  });

  it("rejects the shapes an unguarded handler can take", () => {
    const imp = `import { sameOriginRoute } from "${GUARD_MODULE}";\n`;
    expect(unguardedExports(`${imp}export const POST = sameOriginRoute(async () => new Response());`)).toEqual([]);
    expect(unguardedExports(`import { sameOriginRoute as guard } from "${GUARD_MODULE}";\nexport const GET = guard(async () => new Response());`)).toEqual([]);
    expect(unguardedExports(`export async function POST() { return new Response(); }`)).toHaveLength(1);
    expect(unguardedExports(`${imp}export const GET = async () => new Response();`)).toHaveLength(1);
    expect(unguardedExports(`export const GET = sameOriginRoute(async () => new Response());`)).toHaveLength(1); // not the real guard
    expect(unguardedExports(`${imp}const h = async () => new Response();\nexport { h as DELETE };`)).toHaveLength(1);
    expect(unguardedExports(`export { GET } from "./other";`)).toHaveLength(1);
    expect(unguardedExports(`export * from "./other";`)).toHaveLength(1);
    expect(unguardedExports(`export const { GET, POST } = handlers;`)).toHaveLength(1);
    expect(unguardedExports(`${imp}export const PUT = other(sameOriginRoute(async () => new Response()));`)).toHaveLength(1);
  });
});
