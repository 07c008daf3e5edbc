import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppContext } from "../../context";
import {
  archiveTemplateResponseSchema,
  listTemplatesResponseSchema,
  renderTemplateResponseSchema,
  templateDetailSchema,
  templateIdParamSchema,
  templateSavedResponseSchema,
  templateVersionParamSchema,
  templateVersionSchema,
} from "../../contract/templates";
import {
  archiveTemplate,
  createTemplate,
  getTemplate,
  getTemplateVersion,
  listTemplates,
  renderDraft,
  testRenderTemplate,
  updateTemplate,
  type Refused,
} from "../../domain/templates/templates";
import { readJsonBody } from "../../http/body";
import type { ApiEnv } from "../../http/env";
import { apiError, errorResponse } from "../../http/errors";
import { bodyOf, COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * Templates with versions (docs/contract.md §14). Registered behind the
 * auth middleware: `c.get('auth').accountId` is set; another account's
 * template, or an archived one, is 404. Bodies are read with the byte cap
 * and checked by lib/domain/templates, which gives POST /email's codes for
 * Subject and the bodies (docs/adr/0105).
 */

const idParams = z.object({ id: templateIdParamSchema });
const json = <S extends z.ZodType>(description: string, schema: S) => ({ description, content: { "application/json": { schema } } });

const createTemplateRoute = createRoute({
  method: "post",
  path: "/templates",
  operationId: "createTemplate",
  summary: "Create a template (its version 1)",
  request: { body: bodyOf("TemplateRequest") },
  responses: { 200: json("Created", templateSavedResponseSchema), ...errorResponses(400, 422, ...COMMON_ERRORS) },
});

const updateTemplateRoute = createRoute({
  method: "put",
  path: "/templates/{id}",
  operationId: "updateTemplate",
  summary: "Save a new version of a template (versions are never changed)",
  request: { params: idParams, body: bodyOf("TemplateRequest") },
  responses: { 200: json("The new version", templateSavedResponseSchema), ...errorResponses(400, 404, 422, ...COMMON_ERRORS) },
});

const listTemplatesRoute = createRoute({
  method: "get",
  path: "/templates",
  operationId: "listTemplates",
  summary: "List the account's templates (latest version of each, without bodies), ordered by TemplateID",
  responses: { 200: json("The account's live templates", listTemplatesResponseSchema), ...errorResponses(...COMMON_ERRORS) },
});

const getTemplateRoute = createRoute({
  method: "get",
  path: "/templates/{id}",
  operationId: "getTemplate",
  summary: "The latest version of a template, with the list of its versions",
  request: { params: idParams },
  responses: { 200: json("The template", templateDetailSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const getTemplateVersionRoute = createRoute({
  method: "get",
  path: "/templates/{id}/versions/{version}",
  operationId: "getTemplateVersion",
  summary: "One version of a template",
  request: { params: z.object({ id: templateIdParamSchema, version: templateVersionParamSchema }) },
  responses: { 200: json("The version", templateVersionSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const archiveTemplateRoute = createRoute({
  method: "delete",
  path: "/templates/{id}",
  operationId: "archiveTemplate",
  summary: "Archive a template: it can no longer be read or sent; messages already sent keep their content",
  request: { params: idParams },
  responses: { 200: json("Archived", archiveTemplateResponseSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const renderTemplateRoute = createRoute({
  method: "post",
  path: "/templates/{id}/render",
  operationId: "renderTemplate",
  summary: "Render the latest version (or TemplateVersion) with TemplateModel; nothing is sent",
  request: { params: idParams, body: bodyOf("RenderTemplateRequest") },
  responses: { 200: json("The rendered content", renderTemplateResponseSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const renderDraftRoute = createRoute({
  method: "post",
  path: "/templates/render",
  operationId: "renderTemplateDraft",
  summary: "Render unsaved content (Subject, HTMLContent, PlainContent) with TemplateModel, checked as a save is; nothing is stored or sent",
  request: { body: bodyOf("RenderDraftRequest") },
  responses: { 200: json("The rendered content", renderTemplateResponseSchema), ...errorResponses(400, 422, ...COMMON_ERRORS) },
});

/** A refusal; a 429 (the account's line of renders full, docs/adr/0122) with its Retry-After. */
const refusal = (c: Context, r: Refused) => errorResponse(c, r.errors, r.retryAfter === undefined ? {} : { headers: { "Retry-After": String(r.retryAfter) } });

export function addTemplateRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  const body = async (request: Request) => {
    const read = await readJsonBody(request, ctx.config.api.maxBodyBytes);
    return read.ok ? { ok: true as const, value: read.value } : { ok: false as const };
  };
  const id = (param: string) => Number(param);

  // Before /templates/{id}: the route table's first match wins, and "render" is no id.
  app.openapi(renderDraftRoute, async (c) => {
    const input = await body(c.req.raw);
    if (!input.ok) return apiError(c, 422);
    const result = await renderDraft(input.value, c.get("auth").accountId);
    if (!result.ok) return refusal(c, result);
    return c.json(result.rendered, 200);
  });

  app.openapi(createTemplateRoute, async (c) => {
    const input = await body(c.req.raw);
    if (!input.ok) return apiError(c, 422);
    const result = await createTemplate(ctx.database, c.get("auth").accountId, input.value);
    if (!result.ok) return refusal(c, result);
    return c.json(result.saved, 200);
  });

  app.openapi(updateTemplateRoute, async (c) => {
    const input = await body(c.req.raw);
    if (!input.ok) return apiError(c, 422);
    const result = await updateTemplate(ctx.database, c.get("auth").accountId, id(c.req.valid("param").id), input.value);
    if (!result) return apiError(c, 404);
    if (!result.ok) return refusal(c, result);
    return c.json(result.saved, 200);
  });

  app.openapi(listTemplatesRoute, async (c) => c.json(await listTemplates(ctx.database, c.get("auth").accountId), 200));

  app.openapi(getTemplateRoute, async (c) => {
    const template = await getTemplate(ctx.database, c.get("auth").accountId, id(c.req.valid("param").id));
    return template ? c.json(template, 200) : apiError(c, 404);
  });

  app.openapi(getTemplateVersionRoute, async (c) => {
    const params = c.req.valid("param");
    const version = await getTemplateVersion(ctx.database, c.get("auth").accountId, id(params.id), Number(params.version));
    return version ? c.json(version, 200) : apiError(c, 404);
  });

  app.openapi(archiveTemplateRoute, async (c) => {
    const archived = await archiveTemplate(ctx.database, c.get("auth").accountId, id(c.req.valid("param").id));
    return archived ? c.json({}, 200) : apiError(c, 404);
  });

  app.openapi(renderTemplateRoute, async (c) => {
    const input = await body(c.req.raw);
    if (!input.ok) return apiError(c, 422);
    const result = await testRenderTemplate(ctx.database, c.get("auth").accountId, id(c.req.valid("param").id), input.value);
    if (!result) return apiError(c, 404);
    if (!result.ok) return refusal(c, result);
    return c.json(result.rendered, 200);
  });
}
