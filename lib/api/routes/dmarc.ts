import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import { dmarcQuerySchema, dmarcResponseSchema } from "../../contract/dmarc";
import { domainParamSchema } from "../../contract/domains";
import { dmarcSourcesOf } from "../../domain/dmarc/sources";
import type { ApiEnv } from "../../http/env";
import { apiError } from "../../http/errors";
import { COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * The DMARC sources of a sender domain (docs/contract.md §17.5,
 * docs/adr/0809): what the aggregate reports received for it say, summed by
 * source address. A full key (§17.2); another account's domain is 404.
 */

const dmarcRoute = createRoute({
  method: "get",
  path: "/domains/{domain}/dmarc",
  operationId: "getDomainDmarc",
  summary: "The DMARC aggregate reports received for the domain, summed by source address over the last Days days",
  request: { params: z.object({ domain: domainParamSchema.describe("The domain name") }), query: dmarcQuerySchema },
  responses: {
    200: { description: "The sources, by Count, at most 200", content: { "application/json": { schema: dmarcResponseSchema } } },
    ...errorResponses(404, 422, ...COMMON_ERRORS),
  },
});

export function addDmarcRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openapi(dmarcRoute, async (c) => {
    const sources = await dmarcSourcesOf(ctx.database, c.get("auth").accountId, c.req.valid("param").domain, c.req.valid("query").Days);
    return sources ? c.json(sources, 200) : apiError(c, 404);
  });
}
