import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import {
  createWebhookRequestSchema,
  createWebhookResponseSchema,
  deleteWebhookResponseSchema,
  listWebhooksResponseSchema,
  webhookIdParamSchema,
  type CreateWebhookResponse,
  type DeleteWebhookResponse,
  type ListWebhooksResponse,
} from "../../contract/webhooks";
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  renderWebhook,
  WebhookLimitError,
  WebhookUrlRefusedError,
} from "../../domain/webhooks/webhooks";
import type { ApiEnv } from "../../http/env";
import { apiError } from "../../http/errors";
import { readValidJson } from "../../http/validation";
import { webhookUrlCheck } from "../../webhooks/destination-check";
import { bodyOf, COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * POST, GET and DELETE /webhooks (docs/contract.md §9). Registered behind
 * the auth middleware: `c.get('auth').accountId` is set.
 */
const createWebhookRoute = createRoute({
  method: "post",
  path: "/webhooks",
  operationId: "createWebhook",
  summary: "Register a webhook",
  request: { body: bodyOf("CreateWebhookRequest") },
  responses: {
    200: { description: "Created", content: { "application/json": { schema: createWebhookResponseSchema } } },
    ...errorResponses(422, ...COMMON_ERRORS),
  },
});

const listWebhooksRoute = createRoute({
  method: "get",
  path: "/webhooks",
  operationId: "listWebhooks",
  summary: "List webhooks, ordered by WebhookID",
  responses: {
    200: { description: "The account's webhooks", content: { "application/json": { schema: listWebhooksResponseSchema } } },
    ...errorResponses(...COMMON_ERRORS),
  },
});

const deleteWebhookRoute = createRoute({
  method: "delete",
  path: "/webhooks/{id}",
  operationId: "deleteWebhook",
  summary: "Delete a webhook",
  request: { params: z.object({ id: webhookIdParamSchema }) },
  responses: {
    200: { description: "Deleted", content: { "application/json": { schema: deleteWebhookResponseSchema } } },
    ...errorResponses(404, 422, ...COMMON_ERRORS),
  },
});

export function addWebhookRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  const checkUrl = webhookUrlCheck({ allowPrivate: ctx.config.webhooks.allowPrivate });

  app.openapi(createWebhookRoute, async (c) => {
    const input = await readValidJson(c, createWebhookRequestSchema, ctx.config.api.maxBodyBytes);
    if (!input.ok) return input.response;
    try {
      const row = await createWebhook(ctx.database, c.get("auth").accountId, { event: input.data.Event, url: input.data.WebhookURL }, checkUrl);
      return c.json({ NewWebhookID: row.id } satisfies CreateWebhookResponse, 200);
    } catch (err) {
      if (err instanceof WebhookUrlRefusedError) return apiError(c, 422, "WebhookURL");
      if (err instanceof WebhookLimitError) return apiError(c, 422);
      throw err;
    }
  });

  app.openapi(listWebhooksRoute, async (c) => {
    const rows = await listWebhooks(ctx.database, c.get("auth").accountId);
    return c.json({ Webhooks: rows.map(renderWebhook) } satisfies ListWebhooksResponse, 200);
  });

  app.openapi(deleteWebhookRoute, async (c) => {
    const deleted = await deleteWebhook(ctx.database, c.get("auth").accountId, Number(c.req.valid("param").id));
    if (!deleted) return apiError(c, 404);
    return c.json({} satisfies DeleteWebhookResponse, 200);
  });
}
