import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { errorItem } from "../../contract/errors";
import type { EmailResponse as EmailResponseBody } from "../../contract/email";
import { nowSeconds } from "../../domain/events/event-log";
import { IDEMPOTENCY_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from "../../domain/sending/idempotency-key";
import { currentHeaders, sendEmail } from "../../domain/sending/send-email";
import { sendEmailOnce } from "../../domain/sending/send-email-once";
import { readJsonBody } from "../../http/body";
import type { ApiEnv } from "../../http/env";
import { errorResponse } from "../../http/errors";
import { bodyOf, COMMON_ERRORS, EmailResponse, errorResponses } from "../openapi";

const rateLimitHeaders = {
  "X-RateLimit-Limit": { description: "Limit of the tightest sending window", schema: { type: "string" as const } },
  "X-RateLimit-Remaining": { description: "Emails left in that window", schema: { type: "string" as const } },
  "X-RateLimit-Reset": { description: "Unix seconds at which that window resets", schema: { type: "string" as const } },
};

const replayedHeader = {
  "Idempotent-Replayed": { description: "`true` when the answer is the stored answer of an earlier request with the same Idempotency-Key", schema: { type: "string" as const } },
};

/**
 * POST /email. The body is documented (EmailRequest) but not declared as a
 * zod body: the ordered, code-by-code checks (docs/contract.md §5) of
 * lib/domain/sending/email-request decide which error wins (docs/adr/0105).
 */
const sendEmailRoute = createRoute({
  method: "post",
  path: "/email",
  operationId: "sendEmail",
  summary: "Send one message",
  request: { body: bodyOf("EmailRequest") },
  // Documented, not declared as a zod header schema: the domain's parser decides (docs/adr/0110).
  parameters: [
    {
      name: IDEMPOTENCY_HEADER,
      in: "header",
      required: false,
      description:
        "Makes a retry safe: 1–256 printable ASCII characters, kept 24 hours per API key. The same key with the same body " +
        "replays the first answer (status and body, with `Idempotent-Replayed: true`); with another body, or an invalid key, " +
        "422 (code 422, `Field` `Idempotency-Key`). Requests refused by validation, limits or an outage leave the key free.",
      schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: "^[ -~]+$" },
    },
  ],
  responses: {
    200: {
      description: "Accepted and stored durably",
      headers: { ...rateLimitHeaders, ...replayedHeader },
      content: { "application/json": { schema: EmailResponse } },
    },
    ...errorResponses(400, 403, 409, 422, ...COMMON_ERRORS),
  },
});

/** Read the Idempotency-Key and the body (capped), hand them to the send use case, render its answer. */
export function addEmailRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openapi(sendEmailRoute, async (c) => {
    const key = c.get("auth");
    const deps = { database: ctx.database, boss: ctx.boss, log: c.get("log"), accept: ctx.accept, verifiedDomains: ctx.verifiedDomains };
    const idempotency = parseIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
    if (!idempotency.ok) {
      const headers = await currentHeaders(deps, key, nowSeconds());
      return errorResponse(c, [errorItem(422, IDEMPOTENCY_HEADER)], { headers: { ...headers } });
    }
    const body = await readJsonBody(c.req.raw, ctx.config.api.maxBodyBytes, { exactNumbersAt: ["ContentId", "ContentID"] });
    if (!body.ok) {
      const headers = await currentHeaders(deps, key, nowSeconds());
      return errorResponse(c, [errorItem(422)], { headers: { ...headers } });
    }
    const options = { requestId: c.get("requestId") };
    const result =
      idempotency.key === undefined
        ? await sendEmail(deps, key, body.value, options)
        : await sendEmailOnce(deps, key, body.value, { idempotencyKey: idempotency.key, rawBody: body.bytes }, options);
    if ("replayed" in result) {
      return new Response(result.replayed.body, {
        status: result.replayed.status,
        headers: { "Content-Type": "application/json", ...result.rateLimit, "Idempotent-Replayed": "true" },
      });
    }
    if (result.ok) {
      c.get("log").info({ messageId: result.messageId }, "message accepted");
      const response: EmailResponseBody = { MessageID: result.messageId };
      return c.json(response, 200, { ...result.rateLimit });
    }
    return errorResponse(c, result.errors, {
      headers: { ...result.rateLimit, ...(result.retryAfter !== undefined && { "Retry-After": String(result.retryAfter) }) },
    });
  });
}
