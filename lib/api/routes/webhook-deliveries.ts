import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { webhookIdParamSchema } from "../../contract/webhooks";
import {
  deliveriesQuerySchema,
  deliveriesResponseSchema,
  deliveryDetailSchema,
  deliveryIdParamSchema,
  queuedResponseSchema,
  replayRequestSchema,
  type QueuedResponse,
} from "../../contract/webhook-deliveries";
import { getWebhook } from "../../domain/webhooks/webhooks";
import type { ApiEnv } from "../../http/env";
import { apiError } from "../../http/errors";
import { queryInput } from "../../http/query";
import { readValidJson } from "../../http/validation";
import { getDelivery, listDeliveries } from "../../webhooks/delivery-log";
import { enableWebhook, replayDeliveries, ResendLimitReached, retryDelivery, WebhookDisabledError } from "../../webhooks/replay";
import { bodyOf, COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * Webhook deliveries, retry, replay and re-enabling (docs/contract.md §16).
 * Another account's webhook or delivery is 404, as an unknown one.
 */
const webhookParam = z.object({ id: webhookIdParamSchema });
const deliveryParams = z.object({ id: webhookIdParamSchema, DeliveryID: deliveryIdParamSchema });
const json = <S extends z.ZodType>(description: string, schema: S) => ({ description, content: { "application/json": { schema } } });

const listRoute = createRoute({
  method: "get",
  path: "/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "List a webhook's deliveries, newest first",
  request: { params: webhookParam, query: queryInput(deliveriesQuerySchema) },
  responses: { 200: json("A page of deliveries", deliveriesResponseSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const getRoute = createRoute({
  method: "get",
  path: "/webhooks/{id}/deliveries/{DeliveryID}",
  operationId: "getWebhookDelivery",
  summary: "One delivery with its attempts",
  request: { params: deliveryParams },
  responses: { 200: json("The delivery", deliveryDetailSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const retryRoute = createRoute({
  method: "post",
  path: "/webhooks/{id}/deliveries/{DeliveryID}/retry",
  operationId: "retryWebhookDelivery",
  summary: "Send a finished delivery again now (same webhook-id); Queued 0 when it is pending already; 429 past the account's resends of the hour",
  request: { params: deliveryParams },
  responses: { 200: json("Queued", queuedResponseSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const replayRoute = createRoute({
  method: "post",
  path: "/webhooks/{id}/replay",
  operationId: "replayWebhookDeliveries",
  summary: "Send again the deliveries of a status in a date range (succeeded ones resent within the hour skipped; 429 past the account's resends of the hour)",
  request: { params: webhookParam, body: bodyOf("ReplayRequest") },
  responses: { 200: json("How many were queued", queuedResponseSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const enableRoute = createRoute({
  method: "post",
  path: "/webhooks/{id}/enable",
  operationId: "enableWebhook",
  summary: "Re-enable a disabled webhook and send the deliveries kept meanwhile",
  request: { params: webhookParam },
  responses: { 200: json("How many kept deliveries were queued", queuedResponseSchema), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

/** A webhook id past the safe integers names no webhook. */
function webhookIdOf(raw: string): number {
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : 0;
}

export function addWebhookDeliveryRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {

  app.openapi(listRoute, async (c) => {
    const accountId = c.get("auth").accountId;
    const webhookId = webhookIdOf(c.req.valid("param").id);
    if (!(await getWebhook(ctx.database, accountId, webhookId))) return apiError(c, 404);
    const q = c.req.valid("query");
    const page = await listDeliveries(ctx.database, accountId, webhookId, {
      status: q.Status,
      startDate: q.StartDate,
      endDate: q.EndDate,
      startFrom: q.StartFrom,
      retrieveCount: q.RetrieveCount,
    });
    return c.json(page, 200);
  });

  app.openapi(getRoute, async (c) => {
    const p = c.req.valid("param");
    const delivery = await getDelivery(ctx.database, c.get("auth").accountId, webhookIdOf(p.id), p.DeliveryID);
    if (!delivery) return apiError(c, 404);
    return c.json(delivery, 200);
  });

  app.openapi(retryRoute, async (c) => {
    const p = c.req.valid("param");
    try {
      const queued = await retryDelivery(ctx.database, ctx.boss, c.get("auth").accountId, webhookIdOf(p.id), p.DeliveryID);
      if (queued === undefined) return apiError(c, 404);
      return c.json({ Queued: queued } satisfies QueuedResponse, 200);
    } catch (err) {
      if (err instanceof WebhookDisabledError) return apiError(c, 422, "id");
      if (err instanceof ResendLimitReached) return apiError(c, 429, undefined, { "Retry-After": String(err.retryAfterSeconds) });
      throw err;
    }
  });

  app.openapi(replayRoute, async (c) => {
    const webhookId = webhookIdOf(c.req.valid("param").id);
    const input = await readValidJson(c, replayRequestSchema, ctx.config.api.maxBodyBytes);
    if (!input.ok) return input.response;
    try {
      const queued = await replayDeliveries(ctx.database, ctx.boss, c.get("auth").accountId, webhookId, {
        status: input.data.Status,
        startDate: input.data.StartDate,
        endDate: input.data.EndDate,
      });
      if (queued === undefined) return apiError(c, 404);
      return c.json({ Queued: queued } satisfies QueuedResponse, 200);
    } catch (err) {
      if (err instanceof WebhookDisabledError) return apiError(c, 422, "id");
      if (err instanceof ResendLimitReached) return apiError(c, 429, undefined, { "Retry-After": String(err.retryAfterSeconds) });
      throw err;
    }
  });

  app.openapi(enableRoute, async (c) => {
    const queued = await enableWebhook(ctx.database, ctx.boss, c.get("auth").accountId, webhookIdOf(c.req.valid("param").id));
    if (queued === undefined) return apiError(c, 404);
    return c.json({ Queued: queued } satisfies QueuedResponse, 200);
  });
}
