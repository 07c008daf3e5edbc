import ts from "typescript";

/**
 * SQL text outside lib/storage (docs/adr/0038): a string or template that
 * starts like a statement, or a drizzle `sql` tagged template; and the
 * drizzle query builder outside it (an import of drizzle-orm, a `x.db.select`).
 * Pure, so its unit test feeds it sources.
 */
export interface SqlProblem {
  file: string;
  line: number;
  text: string;
}

// Upper case, as every statement here is written: "Create template" or "drop-zone" is not SQL.
const STATEMENT =
  /^\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+(\s+\w+)?\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s|(CREATE|ALTER|DROP)\s+(TABLE|INDEX|SCHEMA|VIEW|MATERIALIZED|SEQUENCE|FUNCTION|TRIGGER|TYPE|EXTENSION|UNIQUE)\b|TRUNCATE\s|BEGIN\b|COMMIT\b|ROLLBACK\b|LOCK\s+TABLE\s|LISTEN\s|UNLISTEN\s|NOTIFY\s|VACUUM\b|ANALYZE\b|SET\s+(LOCAL|SESSION)\s|SHOW\s+[a-z_]+$)/;

/** Files the rule applies to: the app's own code, not lib/storage, not tests. */
export function isCheckedForSql(file: string): boolean {
  if (!/\.(ts|tsx)$/.test(file) || /\.test\.tsx?$/.test(file) || file.endsWith(".d.ts")) return false;
  if (file.startsWith("lib/storage/")) return false;
  return /^(lib|app|components|cli)\//.test(file) || file === "server.ts";
}

export function sqlProblems(file: string, source: string): SqlProblem[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const problems: SqlProblem[] = [];
  const report = (node: ts.Node, text: string) =>
    problems.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: text.trim().split("\n")[0]!.slice(0, 80) });
  const visit = (node: ts.Node) => {
    if (ts.isTaggedTemplateExpression(node) && /^sql(\.\w+)?$/.test(node.tag.getText(sf))) {
      report(node, node.getText(sf));
      return;
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (STATEMENT.test(node.text)) report(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      if (STATEMENT.test(node.head.text)) report(node, node.head.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return problems;
}

/** The one module that starts transactions (inTransactionOn, docs/adr/0038). */
export const TRANSACTION_MODULE = "lib/storage/transaction.ts";

/** Files the one-way-to-a-transaction rule applies to: the app's own code, lib/storage included, not tests. */
export function isCheckedForTransactions(file: string): boolean {
  if (!/\.(ts|tsx)$/.test(file) || /\.test\.tsx?$/.test(file) || file.endsWith(".d.ts") || file === TRANSACTION_MODULE) return false;
  return /^(lib|app|components|cli)\//.test(file) || file === "server.ts";
}

/** A `BEGIN` written anywhere but the transaction module: every transaction goes through inTransactionOn. */
export function beginProblems(file: string, source: string): SqlProblem[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const problems: SqlProblem[] = [];
  const visit = (node: ts.Node) => {
    const text = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : ts.isTemplateExpression(node) ? node.head.text : undefined;
    if (text !== undefined && /^\s*(BEGIN|START\s+TRANSACTION)\b/.test(text)) {
      problems.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: text.trim().split("\n")[0]!.slice(0, 80) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return problems;
}

/** What drizzle's builder is called through on a Queryable's `db` (q.db.select, tx.db.insert, ...). */
const BUILDER_METHODS = /^(select|selectDistinct|selectDistinctOn|insert|update|delete|execute|query|with|\$with|\$count|transaction)$/;

/**
 * The query builder outside lib/storage: an import (or re-export) of
 * drizzle-orm or any of its subpaths, and a builder call on a Queryable's
 * `db` (`x.db.select(...)`, `tx.db.insert(...)`). A use case calls a row
 * module's function instead, which returns plain rows. Files as isCheckedForSql.
 */
export function builderProblems(file: string, source: string): SqlProblem[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const problems: SqlProblem[] = [];
  const report = (node: ts.Node, text: string) => problems.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text });
  const isDrizzle = (specifier: ts.Node | undefined) => specifier !== undefined && ts.isStringLiteral(specifier) && /^drizzle-orm(\/|$)/.test(specifier.text);
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && isDrizzle(node.moduleSpecifier)) {
      report(node, `import from "${(node.moduleSpecifier as ts.StringLiteral).text}"`);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && isDrizzle(node.arguments[0])) {
      report(node, `import("${(node.arguments[0] as ts.StringLiteral).text}")`);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && isDrizzle(node.argument.literal)) {
      report(node, `import("${(node.argument.literal as ts.StringLiteral).text}")`);
    } else if (
      ts.isPropertyAccessExpression(node) &&
      BUILDER_METHODS.test(node.name.text) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "db"
    ) {
      report(node, `${node.getText(sf).split("\n")[0]!.slice(0, 60)}(...)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return problems;
}
