import { Hono } from "hono";
import { buildOpenApiDocument } from "../openapi-document";
import type { ApiEnv } from "../../http/env";

/** GET /openapi.json (extension): the OpenAPI 3.1 document, built once from lib/contract. Public: it holds no account data. */
export function createOpenApiRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  let doc: string | undefined;
  app.get("/openapi.json", (c) => {
    doc ??= JSON.stringify(buildOpenApiDocument());
    return c.body(doc, 200, { "Content-Type": "application/json" });
  });
  return app;
}
