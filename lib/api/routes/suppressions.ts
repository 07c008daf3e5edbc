import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import {
  addSuppressionRequestSchema,
  addSuppressionResponseSchema,
  deleteSuppressionResponseSchema,
  listSuppressionsResponseSchema,
  suppressionEmailParamSchema,
  suppressionsQuerySchema,
  type AddSuppressionResponse,
  type ListSuppressionsResponse,
} from "../../contract/suppressions";
import { DEFAULT_RETRIEVE_COUNT } from "../../contract/events";
import { addSuppression, normalizeEmail, pageSuppressions, removeSuppression, type SuppressionRow } from "../../domain/accounts/suppressions";
import type { ApiEnv } from "../../http/env";
import { apiError } from "../../http/errors";
import { queryInput } from "../../http/query";
import { readValidJson } from "../../http/validation";
import { COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * GET, POST and DELETE /suppressions (docs/contract.md §17.1): the account's
 * suppression list, through the same domain functions as the dashboard and
 * the CLI. Registered behind the auth middleware.
 */
const listSuppressionsRoute = createRoute({
  method: "get",
  path: "/suppressions",
  operationId: "listSuppressions",
  summary: "List suppressed addresses, newest first",
  request: { query: queryInput(suppressionsQuerySchema) },
  responses: {
    200: { description: "A page of the suppression list", content: { "application/json": { schema: listSuppressionsResponseSchema } } },
    ...errorResponses(422, ...COMMON_ERRORS),
  },
});

const addSuppressionRoute = createRoute({
  method: "post",
  path: "/suppressions",
  operationId: "addSuppression",
  summary: "Suppress an address (it receives no mail from the account)",
  // A reference, not the schema: the handler reads the body with the byte cap and checks it (docs/adr/0105).
  request: { body: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/AddSuppressionRequest" } } } } },
  responses: {
    200: { description: "Suppressed (or already on the list)", content: { "application/json": { schema: addSuppressionResponseSchema } } },
    ...errorResponses(422, ...COMMON_ERRORS),
  },
});

const deleteSuppressionRoute = createRoute({
  method: "delete",
  path: "/suppressions/{email}",
  operationId: "deleteSuppression",
  summary: "Remove an address from the suppression list",
  request: { params: z.object({ email: suppressionEmailParamSchema.describe("The address, URL-encoded") }) },
  responses: {
    200: { description: "Removed", content: { "application/json": { schema: deleteSuppressionResponseSchema } } },
    ...errorResponses(404, 422, ...COMMON_ERRORS),
  },
});

const recordOf = (s: SuppressionRow) => ({
  Email: s.email,
  Reason: s.reason,
  Detail: s.detail,
  MessageID: s.messageId,
  CreatedAt: Math.floor(s.createdAt.getTime() / 1000),
});

export function addSuppressionRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  const database = ctx.database;
  app.openAPIRegistry.register("AddSuppressionRequest", addSuppressionRequestSchema.clone());

  app.openapi(listSuppressionsRoute, async (c) => {
    const q = c.req.valid("query");
    const page = await pageSuppressions(database, c.get("auth").accountId, {
      reason: q.Reason,
      email: q.Email,
      startFrom: q.StartFrom ?? 0,
      retrieveCount: q.RetrieveCount ?? DEFAULT_RETRIEVE_COUNT,
    });
    return c.json({ TotalRecords: page.total, Suppressions: page.rows.map(recordOf) } satisfies ListSuppressionsResponse, 200);
  });

  app.openapi(addSuppressionRoute, async (c) => {
    const input = await readValidJson(c, addSuppressionRequestSchema, ctx.config.api.maxBodyBytes);
    if (!input.ok) return input.response;
    const { Email, Reason, Detail } = input.data;
    const added = await addSuppression(database, { accountId: c.get("auth").accountId, email: Email, reason: Reason ?? "manual", detail: Detail ?? "Added through the API" });
    return c.json({ Email: normalizeEmail(Email), Added: added } satisfies AddSuppressionResponse, 200);
  });

  app.openapi(deleteSuppressionRoute, async (c) => {
    const removed = await removeSuppression(database, c.get("auth").accountId, c.req.valid("param").email);
    if (!removed) return apiError(c, 404);
    return c.json({}, 200);
  });
}
