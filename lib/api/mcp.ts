import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { AppContext } from "../context";
import { authenticateApiKey } from "../domain/accounts/api-keys";
import { CLIENT_ADDRESS_HEADER } from "../domain/shared/client-ip";
import type { ApiEnv } from "../http/env";
import { apiError } from "../http/errors";
import { createMcpServer, type ApiCall } from "../mcp/tools";

/**
 * POST /mcp: the MCP server over streamable HTTP (docs/contract.md §17.4,
 * docs/adr/0900), stateless: each request gets its own server and
 * transport, answered in JSON. The bearer key is checked first (401 with
 * the envelope, as on /api/v1); each tool then calls /api/v1 in-process
 * through `apiFetch` (the app's own fetch) with the same Authorization
 * header, so the key's scope, domains and limits apply as they do to the API.
 */
/**
 * The SDK's transport reads and parses the JSON-RPC body on the event loop:
 * it is held to 4 MiB (the SDK's default), below POST /email's cap, so that
 * one request cannot stall the process (a larger message goes to POST /email).
 */
export const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024;

export function createMcpRoutes(ctx: AppContext, apiFetch: (request: Request) => Response | Promise<Response>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  // The metrics' and access log's route label.
  app.use("*", async (c, next) => {
    c.set("route", "/mcp");
    await next();
  });

  app.post("/", async (c) => {
    const authorization = c.req.header("authorization");
    const auth = await authenticateApiKey(ctx.database, authorization, ctx.apiKeyAuth);
    if (!auth.ok) return apiError(c, auth.code);

    const origin = new URL(c.req.url).origin;
    // A tool's API request is logged with the MCP request's id and client address.
    const forwarded = { "X-Request-Id": c.get("requestId") ?? "", [CLIENT_ADDRESS_HEADER]: c.req.header(CLIENT_ADDRESS_HEADER) ?? "" };
    const call: ApiCall = async (method, path, body) => {
      const res = await apiFetch(
        new Request(`${origin}/api/v1${path}`, {
          method,
          headers: { ...forwarded, Authorization: authorization!, ...(body !== undefined && { "Content-Type": "application/json" }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        }),
      );
      return { status: res.status, body: await res.json() };
    };
    const server = createMcpServer(call);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: Math.min(ctx.config.api.maxBodyBytes, MCP_MAX_BODY_BYTES),
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });

  // Stateless: no stream to open (GET) and no session to end (DELETE).
  app.all("/", (c) => {
    const res = apiError(c, 404);
    return new Response(res.body, { status: 405, headers: { "Content-Type": "application/json", Allow: "POST" } });
  });
  app.all("*", (c) => apiError(c, 404));
  return app;
}
