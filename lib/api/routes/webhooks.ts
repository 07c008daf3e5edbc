import { Hono } from "hono";
import type { AppContext } from "../../context";
import { errorItem, type ApiErrorItem } from "../../contract/errors";
import {
  createWebhookRequestSchema,
  webhookEventSchema,
  webhookIdParamSchema,
  webhookUrlSchema,
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
} from "../../domain/webhooks";
import { readJsonBody } from "../../http/body";
import type { ApiEnv } from "../../http/env";
import { apiError, errorResponse } from "../../http/errors";

/**
 * POST, GET and DELETE /webhooks (CONTRACT.md "Webhooks"). Mounted under
 * /api/v1 behind the auth middleware: `c.get('auth').accountId` is set.
 */
export function createWebhookRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  const guard = { allowPrivate: ctx.config.webhooks.allowPrivate };

  app.post("/webhooks", async (c) => {
    const body = await readJsonBody(c.req.raw, ctx.config.api.maxBodyBytes);
    if (!body.ok || typeof body.value !== "object" || body.value === null || Array.isArray(body.value)) return apiError(c, 422);
    const input = body.value as Record<string, unknown>;
    const errors: ApiErrorItem[] = [];
    if (!webhookEventSchema.safeParse(input.Event).success) errors.push(errorItem(422, "Event"));
    if (!webhookUrlSchema.safeParse(input.WebhookURL).success) errors.push(errorItem(422, "WebhookURL"));
    const parsed = createWebhookRequestSchema.safeParse(input);
    if (errors.length > 0 || !parsed.success) return errorResponse(c, errors.length ? errors : [errorItem(422)]);
    try {
      const row = await createWebhook(
        ctx.database.db,
        c.get("auth").accountId,
        { event: parsed.data.Event, url: parsed.data.WebhookURL },
        guard,
      );
      return c.json({ NewWebhookID: row.id } satisfies CreateWebhookResponse);
    } catch (err) {
      if (err instanceof WebhookUrlRefusedError) return apiError(c, 422, "WebhookURL");
      if (err instanceof WebhookLimitError) return apiError(c, 422);
      throw err;
    }
  });

  app.get("/webhooks", async (c) => {
    const rows = await listWebhooks(ctx.database.db, c.get("auth").accountId);
    return c.json({ Webhooks: rows.map(renderWebhook) } satisfies ListWebhooksResponse);
  });

  app.delete("/webhooks/:id", async (c) => {
    const id = c.req.param("id");
    if (!webhookIdParamSchema.safeParse(id).success) return apiError(c, 422, "id");
    const deleted = await deleteWebhook(ctx.database.db, c.get("auth").accountId, Number(id));
    if (!deleted) return apiError(c, 404);
    return c.json({} satisfies DeleteWebhookResponse);
  });

  return app;
}
