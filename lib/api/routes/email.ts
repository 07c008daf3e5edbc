import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { errorItem } from "../../contract/errors";
import type { EmailResponse as EmailResponseBody } from "../../contract/email";
import { nowSeconds } from "../../domain/event-log";
import { currentHeaders, sendEmail } from "../../domain/send-email";
import { readJsonBody } from "../../http/body";
import type { ApiEnv } from "../../http/env";
import { errorResponse } from "../../http/errors";
import { bodyOf, COMMON_ERRORS, EmailResponse, errorResponses } from "../openapi";

const rateLimitHeaders = {
  "X-RateLimit-Limit": { description: "Limit of the tightest sending window", schema: { type: "string" as const } },
  "X-RateLimit-Remaining": { description: "Emails left in that window", schema: { type: "string" as const } },
  "X-RateLimit-Reset": { description: "Unix seconds at which that window resets", schema: { type: "string" as const } },
};

/**
 * POST /email. The body is documented (EmailRequest) but not declared as a
 * zod body: CONTRACT.md's ordered, code-by-code checks of
 * lib/domain/email-request decide which error wins (docs/adr/0105).
 */
const sendEmailRoute = createRoute({
  method: "post",
  path: "/email",
  operationId: "sendEmail",
  summary: "Send one message",
  request: { body: bodyOf("EmailRequest") },
  responses: {
    200: { description: "Accepted and stored durably", headers: rateLimitHeaders, content: { "application/json": { schema: EmailResponse } } },
    ...errorResponses(400, 403, 422, ...COMMON_ERRORS),
  },
});

/** Read the body (capped), hand it to the send use case, render its answer. */
export function addEmailRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openapi(sendEmailRoute, async (c) => {
    const key = c.get("auth");
    const deps = { database: ctx.database, boss: ctx.boss, log: c.get("log"), accept: ctx.accept };
    const body = await readJsonBody(c.req.raw, ctx.config.api.maxBodyBytes, { exactNumbersAt: ["ContentId", "ContentID"] });
    if (!body.ok) {
      const headers = await currentHeaders(deps, key, nowSeconds());
      return errorResponse(c, [errorItem(422)], { headers: { ...headers } });
    }
    const result = await sendEmail(deps, key, body.value, { requestId: c.get("requestId") });
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
