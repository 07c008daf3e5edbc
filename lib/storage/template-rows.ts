import type { Queryable } from "./database";
import type { Tx } from "./transaction";

/**
 * The SQL of templates and their versions (migration 0910, docs/adr/0120).
 * Every statement is scoped to an account: another account's template is
 * simply not found. Versions are inserted, never updated; an archived
 * template is not found either, except by `archiveTemplateRow` itself.
 * lib/domain/templates decides what a template is; this is only the SQL.
 */

export interface TemplateContentRow {
  subject: string;
  html: string | null;
  plain: string | null;
}

export interface TemplateVersionRow extends TemplateContentRow {
  templateId: number;
  name: string;
  version: number;
  createdAt: Date;
}

export interface TemplateVersionListRow {
  version: number;
  subject: string;
  createdAt: Date;
}

const VERSION_COLUMNS = `t.id::float8 AS "templateId", t.name, v.version, v.subject, v.html, v.plain, v.created_at AS "createdAt"`;

/**
 * The account's live templates, counted with the account's row locked until
 * the transaction ends: concurrent creations count one after the other.
 */
export async function countLiveTemplatesLocked(tx: Tx, accountId: string): Promise<number> {
  await tx.query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", [accountId]);
  const { rows } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM templates WHERE account_id = $1 AND archived_at IS NULL", [accountId]);
  return rows[0]!.n;
}

/** A new template with its version 1, in one statement. */
export async function insertTemplateRow(q: Queryable, accountId: string, name: string, content: TemplateContentRow): Promise<TemplateVersionRow> {
  const { rows } = await q.query<TemplateVersionRow>(
    `WITH t AS (INSERT INTO templates (account_id, name) VALUES ($1, $2) RETURNING id, name),
          v AS (INSERT INTO template_versions (template_id, version, subject, html, plain) SELECT id, 1, $3, $4, $5 FROM t RETURNING *)
     SELECT ${VERSION_COLUMNS} FROM t JOIN v ON v.template_id = t.id`,
    [accountId, name, content.subject, content.html, content.plain],
  );
  return rows[0]!;
}

/**
 * Version n + 1 of a live template of the account (and its new name), or
 * undefined when there is none. Two statements in the caller's transaction:
 * the UPDATE locks the template's row, so the INSERT, which reads the
 * versions after the lock is held, makes n + 1 and a concurrent PUT n + 2.
 */
export async function insertTemplateVersionRow(
  tx: Tx,
  accountId: string,
  templateId: number,
  name: string,
  content: TemplateContentRow,
): Promise<TemplateVersionRow | undefined> {
  const locked = await tx.query(`UPDATE templates SET name = $3 WHERE id = $2 AND account_id = $1 AND archived_at IS NULL`, [accountId, templateId, name]);
  if (locked.rowCount !== 1) return undefined;
  const { rows } = await tx.query<TemplateVersionRow>(
    `WITH v AS (
       INSERT INTO template_versions (template_id, version, subject, html, plain)
       SELECT $1, coalesce(max(version), 0) + 1, $2, $3, $4 FROM template_versions WHERE template_id = $1
       RETURNING *
     )
     SELECT ${VERSION_COLUMNS} FROM templates t JOIN v ON v.template_id = t.id`,
    [templateId, content.subject, content.html, content.plain],
  );
  return rows[0];
}

/** Version `version` (the latest when undefined) of a live template of the account. */
export async function selectTemplateVersionRow(
  q: Queryable,
  accountId: string,
  templateId: number,
  version?: number,
): Promise<TemplateVersionRow | undefined> {
  const { rows } = await q.query<TemplateVersionRow>(
    `SELECT ${VERSION_COLUMNS}
     FROM templates t JOIN template_versions v ON v.template_id = t.id
     WHERE t.id = $2 AND t.account_id = $1 AND t.archived_at IS NULL AND ($3::int IS NULL OR v.version = $3)
     ORDER BY v.version DESC LIMIT 1`,
    [accountId, templateId, version ?? null],
  );
  return rows[0];
}

/** The latest version of each live template of the account, by id. */
export async function selectLatestTemplateRows(q: Queryable, accountId: string): Promise<TemplateVersionRow[]> {
  const { rows } = await q.query<TemplateVersionRow>(
    `SELECT ${VERSION_COLUMNS}
     FROM templates t
     JOIN LATERAL (SELECT * FROM template_versions WHERE template_id = t.id ORDER BY version DESC LIMIT 1) v ON true
     WHERE t.account_id = $1 AND t.archived_at IS NULL
     ORDER BY t.id`,
    [accountId],
  );
  return rows;
}

/** Every version of a template (newest first), without their bodies. */
export async function selectTemplateVersionList(q: Queryable, templateId: number): Promise<TemplateVersionListRow[]> {
  const { rows } = await q.query<TemplateVersionListRow>(
    `SELECT version, subject, created_at AS "createdAt" FROM template_versions WHERE template_id = $1 ORDER BY version DESC`,
    [templateId],
  );
  return rows;
}

/** Archives a live template of the account; false when there is none. */
export async function archiveTemplateRow(q: Queryable, accountId: string, templateId: number): Promise<boolean> {
  const { rowCount } = await q.query(`UPDATE templates SET archived_at = now() WHERE id = $2 AND account_id = $1 AND archived_at IS NULL`, [
    accountId,
    templateId,
  ]);
  return rowCount === 1;
}
