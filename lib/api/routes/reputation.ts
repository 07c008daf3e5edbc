import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { reputationResponseSchema } from "../../contract/reputation";
import { readReputation, reputationResponse } from "../../domain/sending/guardrails/reputation";
import type { ApiEnv } from "../../http/env";
import { apiError } from "../../http/errors";
import { COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * GET /reputation (extension, docs/contract.md §17.6, docs/adr/0136): the
 * account's bounce and complaint rates over the rolling day and week, its
 * thresholds, and whether its sending is paused. Read-only: a key that
 * reads (docs/contract.md §17.2).
 */
const getReputationRoute = createRoute({
  method: "get",
  path: "/reputation",
  operationId: "getReputation",
  summary: "Extension: the account's reputation guardrails (bounce and complaint rates, thresholds, pause)",
  responses: {
    200: { description: "The account's rates, thresholds and status", content: { "application/json": { schema: reputationResponseSchema.clone() } } },
    ...errorResponses(...COMMON_ERRORS),
  },
});

export function addReputationRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openapi(getReputationRoute, async (c) => {
    const accountId = c.get("auth").accountId;
    // On the primary: the pause is written there and a replica's lag must not hide it.
    const rep = await readReputation(ctx.database, ctx.config.guardrails, accountId, { rollups: ctx.rollups });
    if (!rep) return apiError(c, 404);
    return c.json(reputationResponse(rep), 200);
  });
}
