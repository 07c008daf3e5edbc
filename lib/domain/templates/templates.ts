import { errorItem, type ApiErrorItem } from "../../contract/errors";
import {
  MAX_TEMPLATE_VERSION,
  MAX_TEMPLATES_PER_ACCOUNT,
  templateModelSchema,
  templateNameSchema,
  type ListTemplatesResponse,
  type RenderTemplateResponse,
  type TemplateDetail,
  type TemplateSavedResponse,
  type TemplateVersion,
} from "../../contract/templates";
import type { Database } from "../../storage/database";
import {
  archiveTemplateRow,
  countLiveTemplatesLocked,
  insertTemplateRow,
  insertTemplateVersionRow,
  selectLatestTemplateRows,
  selectTemplateVersionList,
  selectTemplateVersionRow,
  type TemplateContentRow,
  type TemplateVersionRow,
} from "../../storage/template-rows";
import { withTransaction } from "../../storage/transaction";
import { validateSubjectAndBodies } from "../sending/email-request/validate";
import { MAX_TEMPLATE_BYTES, renderTemplate, unparsablePart, type RenderOutcome, type TemplatePart } from "./render";

/**
 * Templates of an account (docs/contract.md §14, docs/adr/0120): create,
 * new version, list, read, archive, test render. Every read and write is
 * scoped to the account: another account's template, or an archived one,
 * is `undefined` here (404 on the wire).
 */

/** `retryAfter` (seconds): a 429, the Retry-After to answer with. */
export type Refused = { ok: false; errors: ApiErrorItem[]; retryAfter?: number };

/** The account's line of renders is full (docs/adr/0122): the wait is a render or two, so one second. */
export const BUSY_REFUSAL: Refused = { ok: false, errors: [errorItem(429)], retryAfter: 1 };

/** The wire name of each part of a template. */
export const FIELD_OF_PART: Record<TemplatePart, "Subject" | "HTMLContent" | "PlainContent"> = {
  subject: "Subject",
  html: "HTMLContent",
  text: "PlainContent",
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A POST or PUT body checked: the name, then Subject and bodies by the rules
 * of POST /email (same codes), the size bound, then Mustache's parse (on a
 * worker when large).
 */
export async function parseTemplateRequest(body: unknown, accountId: string): Promise<{ ok: true; name: string; content: TemplateContentRow } | Refused> {
  if (!isPlainObject(body)) return { ok: false, errors: [errorItem(422)] };
  const name = templateNameSchema.safeParse(body.Name);
  const content = await parseTemplateContent(body, accountId, name.success ? [] : [errorItem(422, "Name")]);
  if (!content.ok) return content;
  return name.success ? { ok: true, name: name.data, content: content.content } : { ok: false, errors: [errorItem(422, "Name")] };
}

/** Subject and bodies of a template body, checked as parseTemplateRequest checks them (`earlier`: errors found before, reported first). */
async function parseTemplateContent(
  body: Record<string, unknown>,
  accountId: string,
  earlier: ApiErrorItem[] = [],
): Promise<{ ok: true; content: TemplateContentRow } | Refused> {
  const fields = validateSubjectAndBodies(body);
  if (!fields.ok) return { ok: false, errors: [...earlier, ...fields.errors] };
  if (earlier.length > 0) return { ok: false, errors: earlier };
  const sizes: [TemplatePart, number][] = [
    ["subject", Buffer.byteLength(fields.subject, "utf8")],
    ["html", fields.html ? Buffer.byteLength(fields.html, "utf8") : 0],
    ["text", fields.text ? Buffer.byteLength(fields.text, "utf8") : 0],
  ];
  if (sizes.reduce((n, [, b]) => n + b, 0) > MAX_TEMPLATE_BYTES) {
    const largest = sizes.reduce((a, b) => (b[1] > a[1] ? b : a));
    return { ok: false, errors: [errorItem(422, FIELD_OF_PART[largest[0]])] };
  }
  const unparsable = await unparsablePart(fields, accountId);
  if (unparsable === "busy") return BUSY_REFUSAL;
  if (unparsable) return { ok: false, errors: [errorItem(422, FIELD_OF_PART[unparsable])] };
  return { ok: true, content: { subject: fields.subject, html: fields.html ?? null, plain: fields.text ?? null } };
}

export async function createTemplate(database: Database, accountId: string, body: unknown): Promise<{ ok: true; saved: TemplateSavedResponse } | Refused> {
  const input = await parseTemplateRequest(body, accountId);
  if (!input.ok) return input;
  const row = await withTransaction(database, async (tx) => {
    // The account's row is locked while counting, so concurrent creations cannot pass the cap together.
    if ((await countLiveTemplatesLocked(tx, accountId)) >= MAX_TEMPLATES_PER_ACCOUNT) return undefined;
    return insertTemplateRow(tx, accountId, input.name, input.content);
  });
  if (!row) return { ok: false, errors: [errorItem(422)] };
  return { ok: true, saved: { TemplateID: row.templateId, Version: row.version } };
}

/** A new version; `undefined` when the account has no such live template. */
export async function updateTemplate(
  database: Database,
  accountId: string,
  templateId: number,
  body: unknown,
): Promise<{ ok: true; saved: TemplateSavedResponse } | Refused | undefined> {
  // An unknown template is a 404 whatever the body.
  if (!(await selectTemplateVersionRow(database, accountId, templateId))) return undefined;
  const input = await parseTemplateRequest(body, accountId);
  if (!input.ok) return input;
  const row = await withTransaction(database, (tx) => insertTemplateVersionRow(tx, accountId, templateId, input.name, input.content));
  return row && { ok: true, saved: { TemplateID: row.templateId, Version: row.version } };
}

export function renderTemplateVersion(row: TemplateVersionRow): TemplateVersion {
  return {
    TemplateID: row.templateId,
    Name: row.name,
    Version: row.version,
    Subject: row.subject,
    ...(row.html !== null && { HTMLContent: row.html }),
    ...(row.plain !== null && { PlainContent: row.plain }),
    CreatedAt: row.createdAt.toISOString(),
  };
}

export async function listTemplates(database: Database, accountId: string): Promise<ListTemplatesResponse> {
  const rows = await selectLatestTemplateRows(database, accountId);
  return {
    Templates: rows.map((r) => ({ TemplateID: r.templateId, Name: r.name, Version: r.version, Subject: r.subject, UpdatedAt: r.createdAt.toISOString() })),
  };
}

/** The latest version with the list of all versions (newest first). */
export async function getTemplate(database: Database, accountId: string, templateId: number): Promise<TemplateDetail | undefined> {
  const latest = await selectTemplateVersionRow(database, accountId, templateId);
  if (!latest) return undefined;
  const versions = await selectTemplateVersionList(database, templateId);
  return {
    ...renderTemplateVersion(latest),
    Versions: versions.map((v) => ({ Version: v.version, Subject: v.subject, CreatedAt: v.createdAt.toISOString() })),
  };
}

export async function getTemplateVersion(database: Database, accountId: string, templateId: number, version: number): Promise<TemplateVersion | undefined> {
  const row = await selectTemplateVersionRow(database, accountId, templateId, version);
  return row && renderTemplateVersion(row);
}

export async function archiveTemplate(database: Database, accountId: string, templateId: number): Promise<boolean> {
  return archiveTemplateRow(database, accountId, templateId);
}

/** The errors of a render stopped by a bound or a parse (the model is what the client can change), or not run (`busy`). */
export function renderRefusal(outcome: Exclude<RenderOutcome, { ok: true }>): Refused {
  if (outcome.reason === "busy") return BUSY_REFUSAL;
  return { ok: false, errors: [errorItem(422, "TemplateModel")] };
}

/**
 * POST /templates/{id}/render: the latest version (or `TemplateVersion`)
 * rendered with `TemplateModel`, nothing sent. `undefined`: no such template or version.
 */
export async function testRenderTemplate(
  database: Database,
  accountId: string,
  templateId: number,
  body: unknown,
): Promise<{ ok: true; rendered: RenderTemplateResponse } | Refused | undefined> {
  if (!isPlainObject(body)) return (await selectTemplateVersionRow(database, accountId, templateId)) ? { ok: false, errors: [errorItem(422)] } : undefined;
  const version = parseVersion(body.TemplateVersion);
  if (version === null) return { ok: false, errors: [errorItem(422, "TemplateVersion")] };
  const row = await selectTemplateVersionRow(database, accountId, templateId, version);
  if (!row) return undefined;
  const model = templateModelSchema.nullish().safeParse(body.TemplateModel);
  if (!model.success) return { ok: false, errors: [errorItem(422, "TemplateModel")] };
  return renderedOf(await renderTemplate(partsOf(row), model.data ?? {}, accountId));
}

/**
 * POST /templates/render (docs/contract.md §14.4): content that is not saved
 * (the dashboard editor's unsaved edits) checked as a save checks it, then
 * rendered with `TemplateModel` under the same bounds; nothing is stored or sent.
 */
export async function renderDraft(body: unknown, accountId: string): Promise<{ ok: true; rendered: RenderTemplateResponse } | Refused> {
  if (!isPlainObject(body)) return { ok: false, errors: [errorItem(422)] };
  const content = await parseTemplateContent(body, accountId);
  if (!content.ok) return content;
  const model = templateModelSchema.nullish().safeParse(body.TemplateModel);
  if (!model.success) return { ok: false, errors: [errorItem(422, "TemplateModel")] };
  return renderedOf(await renderTemplate(partsOf(content.content), model.data ?? {}, accountId));
}

function renderedOf(outcome: RenderOutcome): { ok: true; rendered: RenderTemplateResponse } | Refused {
  if (!outcome.ok) return renderRefusal(outcome);
  const r = outcome.rendered;
  return { ok: true, rendered: { Subject: r.subject, ...(r.html !== undefined && { HTMLContent: r.html }), ...(r.text !== undefined && { PlainContent: r.text }) } };
}

export const partsOf = (row: TemplateContentRow) => ({
  subject: row.subject,
  ...(row.html !== null && { html: row.html }),
  ...(row.plain !== null && { text: row.plain }),
});

/** A version number given in a body: undefined when absent, null when not a version number. */
export function parseVersion(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === "string" && /^[0-9]{1,10}$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= MAX_TEMPLATE_VERSION ? n : null;
}

/** A TemplateID given in a body (a number, or its digits as a string): null when it cannot be one. */
export function parseTemplateId(value: unknown): number | null {
  const n = typeof value === "string" && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 1 ? n : null;
}
