import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "../../http/env";
import { DOCUMENT_CONFIG, errorResponses } from "../openapi";

/** GET /openapi.json (extension). Public (`security: []`): it holds no account data. */
const getOpenApiRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "getOpenApi",
  summary: "Extension: this document",
  security: [],
  responses: {
    200: { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } },
    ...errorResponses(500),
  },
});

/** The document of every route registered on `app`, generated once, at the first request (when all are registered). */
export function addOpenApiRoute(app: OpenAPIHono<ApiEnv>): void {
  let doc: string | undefined;
  app.openapi(getOpenApiRoute, (c) => {
    doc ??= JSON.stringify(app.getOpenAPI31Document(DOCUMENT_CONFIG));
    return c.body(doc, 200, { "Content-Type": "application/json" });
  });
}
