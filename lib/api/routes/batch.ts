import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { errorItem } from "../../contract/errors";
import { batchResponseSchema, MAX_BATCH_BODY_BYTES, MAX_BATCH_ITEMS } from "../../contract/scheduled";
import { nowSeconds } from "../../domain/events/event-log";
import { IDEMPOTENCY_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from "../../domain/sending/idempotency-key";
import { sendBatch } from "../../domain/sending/send-batch";
import { currentHeaders } from "../../domain/sending/send-email";
import { readJsonArrayBody } from "../../http/body";
import type { ApiEnv } from "../../http/env";
import { errorResponse } from "../../http/errors";
import { COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * POST /email/batch (docs/contract.md §15.4): up to 500 email requests in one
 * JSON array, 50 MB at most (refused before it is all read, like POST
 * /email's 15 MiB); the body is parsed off the event loop (lib/http/body.ts).
 * Each item is answered in order; the batch itself is refused (422) only
 * when the body is not such an array.
 */
const sendBatchRoute = createRoute({
  method: "post",
  path: "/email/batch",
  operationId: "sendEmailBatch",
  summary: "Send up to 500 messages in one request",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: { type: "array", minItems: 1, maxItems: MAX_BATCH_ITEMS, items: { $ref: "#/components/schemas/EmailRequest" } },
        },
      },
    },
  },
  parameters: [
    {
      name: IDEMPOTENCY_HEADER,
      in: "header",
      required: false,
      description: "Covers the whole batch: the same key with the same body replays the first answer (the whole array) with `Idempotent-Replayed: true`.",
      schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: "^[ -~]+$" },
    },
  ],
  responses: {
    200: {
      description: "One entry per item, in order: `{MessageID}` when accepted, `{Errors}` (the codes of POST /email) when refused",
      content: { "application/json": { schema: batchResponseSchema } },
    },
    ...errorResponses(409, 422, ...COMMON_ERRORS),
  },
});

export function addBatchRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openapi(sendBatchRoute, async (c) => {
    const key = c.get("auth");
    const deps = { database: ctx.database, boss: ctx.boss, log: c.get("log"), acceptBatch: ctx.acceptBatch, verifiedDomains: ctx.verifiedDomains };
    const refuse = async (field?: string) => {
      const headers = await currentHeaders(deps, key, nowSeconds());
      return errorResponse(c, [errorItem(422, field)], { headers: { ...headers } });
    };
    const idempotency = parseIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
    if (!idempotency.ok) return refuse(IDEMPOTENCY_HEADER);
    const body = await readJsonArrayBody(c.req.raw, MAX_BATCH_BODY_BYTES, { exactNumbersAt: ["ContentId", "ContentID"] });
    if (!body.ok || !Array.isArray(body.value) || body.value.length === 0 || body.value.length > MAX_BATCH_ITEMS) return refuse();
    const result = await sendBatch(deps, key, body.value, {
      requestId: c.get("requestId"),
      ...(idempotency.key !== undefined && { idempotency: { key: idempotency.key, rawBody: body.bytes } }),
    });
    if ("replayed" in result) {
      return new Response(result.replayed.body, {
        status: result.replayed.status,
        headers: { "Content-Type": "application/json", ...result.rateLimit, "Idempotent-Replayed": "true" },
      });
    }
    if (!result.ok) return errorResponse(c, result.errors, { headers: { ...result.rateLimit } });
    const accepted = result.results.filter((r) => "MessageID" in r).length;
    c.get("log").info({ items: result.results.length, accepted }, "batch accepted");
    return c.json(result.results, 200, { ...result.rateLimit });
  });
}
