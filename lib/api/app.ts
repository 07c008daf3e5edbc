import { Hono, type MiddlewareHandler } from "hono";
import type { AppContext } from "../context";
import { bodyLimit, TRACKING_BODY_LIMIT_BYTES } from "../http/body-limit";
import { onApiError } from "../http/on-error";
import { requestContext } from "../http/request-context";
import { securityHeaders } from "../http/security-headers";
import { createMcpRoutes } from "./mcp";
import { createHealthRoutes } from "./routes/health";
import { createInboundDownloadRoutes } from "./routes/inbound-download";
import { createMetricsRoutes } from "./routes/metrics";
import { createTrackingRoutes } from "./routes/tracking";
import { createV1Routes } from "./v1";

/** Paths served by the Hono app; everything else goes to Next.js. */
const API_PREFIXES = ["/api/v1/", "/t/", "/healthz", "/readyz", "/metrics", "/mcp/"];

export function isApiPath(pathname: string): boolean {
  return pathname === "/api/v1" || API_PREFIXES.some((p) => pathname === p.replace(/\/$/, "") || pathname.startsWith(p));
}

/** The public HTTP surface: /api/v1 (the spec's API), /t (tracking), health, /mcp (MCP over HTTP). */
export function createApiApp(ctx: AppContext): Hono {
  const app = new Hono({ strict: false });
  // Request id, access log and request metrics for every path; the 500 envelope for defects.
  app.use("*", requestContext(ctx.log, ctx.httpMetrics) as unknown as MiddlewareHandler);
  app.use("*", securityHeaders()); // nosniff everywhere; CSP and framing rules on every text/html page (ADR 0503)
  app.onError(onApiError(ctx.log, ctx.outage));
  // Bodies are bounded before anything reads them: /api/v1 by its routes' readJsonBody
  // (MAILROOM_MAX_BODY_BYTES); the paths below take no body or a tiny one.
  for (const path of ["/t/*", "/healthz", "/readyz", "/metrics"]) app.use(path, bodyLimit(TRACKING_BODY_LIMIT_BYTES));
  app.route("/", createMetricsRoutes(ctx));
  app.route("/", createHealthRoutes(ctx));
  app.route("/api/v1", createV1Routes(ctx) as unknown as Hono);
  app.route("/t", createInboundDownloadRoutes(ctx));
  app.route("/t", createTrackingRoutes(ctx));
  // Its tools call /api/v1 through this same app (docs/adr/0900).
  app.route("/mcp", createMcpRoutes(ctx, (request) => app.fetch(request)) as unknown as Hono);
  return app;
}
