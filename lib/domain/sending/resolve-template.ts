import { errorItem, type ApiErrorItem } from "../../contract/errors";
import { TEMPLATE_REPLACED_FIELDS, TEMPLATE_SEND_FIELDS } from "../../contract/templates";
import type { ApiKeyScope } from "../../contract/api-keys";
import type { Database } from "../../storage/database";
import { selectTemplateVersionRow } from "../../storage/template-rows";
import { keyMaySendTemplates, TEMPLATE_REFUSAL_FOR_DOMAIN_KEY } from "../accounts/key-scope";
import { inRenderLine } from "../templates/render";
import { chargedRenderRefusal, spentWindowRefusal, type RenderPayer } from "./render-charge";
import { BUSY_REFUSAL, parseTemplateId, parseVersion, partsOf } from "../templates/templates";

/**
 * Sending with a template (docs/contract.md §14.3, docs/adr/0120): one
 * parsed request body in, the same body with Subject, ContentType,
 * HTMLContent and PlainContent filled in from the rendered version out.
 * POST /email calls it before its ordered checks, which then run on the
 * rendered content; each item of a batch calls it the same way.
 *
 * A body without TemplateID, TemplateVersion and TemplateModel is returned
 * as it is (the same object): every other request is unchanged.
 */

export type TemplateResolution =
  | { ok: true; body: unknown; template?: { id: number; version: number } }
  /** `retryAfter`: a 429 (the key's window spent, or its line of renders full), seconds. */
  | { ok: false; errors: ApiErrorItem[]; retryAfter?: number };

const isAbsent = (v: unknown) => v === undefined || v === null;
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The sending key, as far as templates are concerned: what it may send, and what its refused renders cost (render-charge.ts). */
export interface TemplateSender extends RenderPayer {
  accountId: string;
  scope: ApiKeyScope;
  senderDomains: readonly string[] | null;
}

export async function resolveTemplateContent(database: Database, key: TemplateSender, body: unknown, now: number): Promise<TemplateResolution> {
  if (!isPlainObject(body) || TEMPLATE_SEND_FIELDS.every((f) => isAbsent(body[f]))) return { ok: true, body };
  // Sending a version to oneself reads it (docs/contract.md §17.3): refused before the lookup, so no id is confirmed either.
  if (!keyMaySendTemplates(key.scope, key.senderDomains)) {
    return { ok: false, errors: [{ ...errorItem(403, "TemplateID"), Message: TEMPLATE_REFUSAL_FOR_DOMAIN_KEY }] };
  }
  const { accountId } = key;

  const errors: ApiErrorItem[] = [];
  const templateId = parseTemplateId(body.TemplateID);
  if (templateId === null) errors.push(errorItem(15, "TemplateID"));
  const version = parseVersion(body.TemplateVersion);
  if (version === null) errors.push(errorItem(422, "TemplateVersion"));
  if (!isAbsent(body.TemplateModel) && !isPlainObject(body.TemplateModel)) errors.push(errorItem(422, "TemplateModel"));
  // A template replaces these fields: giving both is ambiguous.
  for (const field of TEMPLATE_REPLACED_FIELDS) if (!isAbsent(body[field])) errors.push(errorItem(422, field));
  if (errors.length > 0 || templateId === null || version === null) return { ok: false, errors };

  // In the account's line of renders from here (docs/adr/0122): a full line is refused before any query.
  const rendered = await inRenderLine(accountId, async (render) => {
    const row = await selectTemplateVersionRow(database, accountId, templateId, version);
    if (!row) return { ok: false as const, errors: [errorItem(15, version === undefined ? "TemplateID" : "TemplateVersion")] };
    const spent = await spentWindowRefusal(database, key, now);
    if (spent) return spent;
    const outcome = await render(partsOf(row), body.TemplateModel ?? {});
    return outcome.ok ? { ...outcome, row } : chargedRenderRefusal(database, key, outcome, now);
  });
  if (rendered === "busy") return BUSY_REFUSAL;
  if (!rendered.ok) return rendered;
  const { row } = rendered;

  const rest: Record<string, unknown> = { ...body };
  for (const field of TEMPLATE_SEND_FIELDS) delete rest[field];
  const r = rendered.rendered;
  return {
    ok: true,
    body: {
      ...rest,
      Subject: r.subject,
      ContentType: r.html !== undefined ? "HTML" : "Text",
      ...(r.html !== undefined && { HTMLContent: r.html }),
      ...(r.text !== undefined && { PlainContent: r.text }),
    },
    template: { id: row.templateId, version: row.version },
  };
}
