import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import {
  createInboundRouteRequestSchema,
  createInboundRouteResponseSchema,
  inboundEmptyResponseSchema,
  inboundMessageDetailSchema,
  inboundMessageIdParamSchema,
  inboundMessagesQuerySchema,
  inboundRouteIdParamSchema,
  listInboundMessagesResponseSchema,
  listInboundRoutesResponseSchema,
  type InboundMessageDetail,
  type ListInboundRoutesResponse,
} from "../../contract/inbound";
import { listMessages, payloadWithMembers, readMessage, readRaw } from "../../domain/inbound/messages";
import { retryInbound } from "../../domain/inbound/receive";
import {
  createInboundRoute,
  deleteRoute,
  InboundDomainNotVerifiedError,
  InboundMatchInvalidError,
  InboundRouteLimitError,
  InboundRouteTakenError,
  listRoutes,
} from "../../domain/inbound/routes";
import { WebhookUrlRefusedError } from "../../domain/webhooks/webhooks";
import type { ApiEnv } from "../../http/env";
import { apiError } from "../../http/errors";
import { queryInput } from "../../http/query";
import { readValidJson } from "../../http/validation";
import { webhookUrlCheck } from "../../webhooks/destination-check";
import { bodyOf, COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * /inbound (docs/contract.md §13): routes, received messages, their raw
 * MIME and replay. Registered behind the auth middleware
 * (`c.get('auth').accountId`). The signed download of large attachments is
 * lib/api/routes/inbound-download.ts (under /t: its token authorises it).
 */

const json = <S extends z.ZodType>(schema: S, description: string) => ({ description, content: { "application/json": { schema } } });

const createRouteDef = createRoute({
  method: "post",
  path: "/inbound/routes",
  operationId: "createInboundRoute",
  summary: "Extension: receive mail for an address or domain and post it to a URL",
  request: { body: bodyOf("CreateInboundRouteRequest") },
  responses: { 200: json(createInboundRouteResponseSchema, "Created"), ...errorResponses(403, 422, ...COMMON_ERRORS) },
});

const listRoutesDef = createRoute({
  method: "get",
  path: "/inbound/routes",
  operationId: "listInboundRoutes",
  summary: "Extension: the account's inbound routes, ordered by RouteID",
  responses: { 200: json(listInboundRoutesResponseSchema, "The routes"), ...errorResponses(...COMMON_ERRORS) },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: "/inbound/routes/{id}",
  operationId: "deleteInboundRoute",
  summary: "Extension: delete an inbound route",
  request: { params: z.object({ id: inboundRouteIdParamSchema }) },
  responses: { 200: json(inboundEmptyResponseSchema, "Deleted"), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const listMessagesDef = createRoute({
  method: "get",
  path: "/inbound/messages",
  operationId: "listInboundMessages",
  summary: "Extension: received messages, newest first",
  request: { query: queryInput(inboundMessagesQuerySchema) },
  responses: { 200: json(listInboundMessagesResponseSchema, "A page of messages"), ...errorResponses(422, ...COMMON_ERRORS) },
});

const messageParams = z.object({ MessageID: inboundMessageIdParamSchema });

const getMessageDef = createRoute({
  method: "get",
  path: "/inbound/messages/{MessageID}",
  operationId: "getInboundMessage",
  summary: "Extension: a received message as posted, with its delivery status and attempts",
  request: { params: messageParams },
  responses: { 200: json(inboundMessageDetailSchema, "The message"), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const getRawDef = createRoute({
  method: "get",
  path: "/inbound/messages/{MessageID}/raw",
  operationId: "getInboundMessageRaw",
  summary: "Extension: the received MIME",
  request: { params: messageParams },
  responses: {
    200: { description: "The message as received", content: { "message/rfc822": { schema: { type: "string" } } } },
    ...errorResponses(404, 422, ...COMMON_ERRORS),
  },
});

const retryDef = createRoute({
  method: "post",
  path: "/inbound/messages/{MessageID}/retry",
  operationId: "retryInboundMessage",
  summary: "Extension: post a received message to its URL again now",
  request: { params: messageParams },
  responses: { 200: json(inboundEmptyResponseSchema, "Queued"), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const iso = (d: Date) => d.toISOString();

export function addInboundRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  const checkUrl = webhookUrlCheck({ allowPrivate: ctx.config.webhooks.allowPrivate });

  app.openapi(createRouteDef, async (c) => {
    const input = await readValidJson(c, createInboundRouteRequestSchema, ctx.config.api.maxBodyBytes);
    if (!input.ok) return input.response;
    try {
      const row = await createInboundRoute(ctx.database, c.get("auth").accountId, { match: input.data.Match, webhookUrl: input.data.WebhookURL }, checkUrl);
      return c.json({ RouteID: row.id }, 200);
    } catch (err) {
      if (err instanceof InboundMatchInvalidError) return apiError(c, 422, "Match");
      if (err instanceof InboundDomainNotVerifiedError) return apiError(c, 32, "Match");
      if (err instanceof InboundRouteTakenError) return apiError(c, 422, "Match");
      if (err instanceof WebhookUrlRefusedError) return apiError(c, 422, "WebhookURL");
      if (err instanceof InboundRouteLimitError) return apiError(c, 422);
      throw err;
    }
  });

  app.openapi(listRoutesDef, async (c) => {
    const rows = await listRoutes(ctx.database, c.get("auth").accountId);
    const body: ListInboundRoutesResponse = { Routes: rows.map((r) => ({ RouteID: r.id, Match: r.match, WebhookURL: r.webhook_url, CreatedAt: iso(r.created_at) })) };
    return c.json(body, 200);
  });

  app.openapi(deleteRouteDef, async (c) => {
    if (!(await deleteRoute(ctx.database, c.get("auth").accountId, Number(c.req.valid("param").id)))) return apiError(c, 404);
    return c.json({}, 200);
  });

  app.openapi(listMessagesDef, async (c) => {
    const q = c.req.valid("query");
    const { total, rows } = await listMessages(ctx.database, c.get("auth").accountId, {
      startFrom: q.StartFrom ?? 0,
      retrieveCount: q.RetrieveCount ?? 20,
      fromDate: q.StartDate === undefined ? undefined : new Date(q.StartDate * 1000),
      toDate: q.EndDate === undefined ? undefined : new Date(q.EndDate * 1000),
      recipient: q.Recipient,
      status: q.Status,
    });
    return c.json(
      {
        TotalRecords: total,
        InboundMessages: rows.map((r) => ({
          MessageID: r.id,
          Status: r.status,
          ReceivedAt: iso(r.received_at),
          OriginalRecipient: r.original_recipient,
          MailboxHash: r.mailbox_hash,
          From: r.from_email,
          Subject: r.subject,
          Size: r.size,
          Attempts: r.attempts,
          RouteID: r.route_id,
          RepliedToMessageID: r.replied_to_message_id,
        })),
      },
      200,
    );
  });

  app.openapi(getMessageDef, async (c) => {
    const found = await readMessage(ctx.database, c.get("auth").accountId, c.req.valid("param").MessageID);
    if (!found) return apiError(c, 404);
    const { row, attempts } = found;
    const status = {
      Status: row.status,
      ReceivedAt: iso(row.received_at),
      ExpiresAt: iso(row.expires_at),
      RouteID: row.route_id,
      WebhookURL: row.webhook_url,
      DeliveryAttempts: attempts.map((a) => ({ At: iso(a.attempted_at), DurationMs: a.duration_ms, ResponseCode: a.status_code, ResponseBody: a.body, Error: a.error })),
    };
    if (row.payload === null) {
      const body: InboundMessageDetail = { MessageID: row.id, OriginalRecipient: row.original_recipient, MailboxHash: row.mailbox_hash, ...status };
      return c.json(body, 200);
    }
    // The posted JSON as stored (it holds MessageID, OriginalRecipient and MailboxHash), the status members after it.
    const body = await payloadWithMembers(row.payload, status);
    return c.body(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length), 200, { "Content-Type": "application/json" });
  });

  app.openapi(getRawDef, async (c) => {
    const raw = await readRaw(ctx.database, c.get("auth").accountId, c.req.valid("param").MessageID);
    if (!raw) return apiError(c, 404);
    return c.body(new Uint8Array(raw), 200, { "Content-Type": "message/rfc822" });
  });

  app.openapi(retryDef, async (c) => {
    const id = c.req.valid("param").MessageID;
    if (!(await retryInbound(ctx, c.get("auth").accountId, id))) return apiError(c, 404);
    return c.json({}, 200);
  });
}
