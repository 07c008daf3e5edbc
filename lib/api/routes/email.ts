import { Hono } from "hono";
import type { AppContext } from "../../context";
import { errorItem } from "../../contract/errors";
import type { EmailResponse } from "../../contract/email";
import { nowSeconds } from "../../domain/event-log";
import { currentHeaders, sendEmail } from "../../domain/send-email";
import { readJsonBody } from "../../http/body";
import type { ApiEnv } from "../../http/env";
import { errorResponse } from "../../http/errors";

/** POST /email: read the body, hand it to the send use case, render its answer. */
export function createEmailRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  app.post("/email", async (c) => {
    const key = c.get("auth");
    const deps = { database: ctx.database, boss: ctx.boss, log: c.get("log") };
    const body = await readJsonBody(c.req.raw, ctx.config.api.maxBodyBytes, { exactNumbersAt: ["ContentId", "ContentID"] });
    if (!body.ok) {
      const headers = await currentHeaders(deps, key, nowSeconds());
      return errorResponse(c, [errorItem(422)], { headers: { ...headers } });
    }
    const result = await sendEmail(deps, key, body.value, { requestId: c.get("requestId") });
    if (result.ok) {
      c.get("log").info({ messageId: result.messageId }, "message accepted");
      const response: EmailResponse = { MessageID: result.messageId };
      return c.json(response, 200, { ...result.rateLimit });
    }
    return errorResponse(c, result.errors, {
      headers: { ...result.rateLimit, ...(result.retryAfter !== undefined && { "Retry-After": String(result.retryAfter) }) },
    });
  });
  return app;
}
