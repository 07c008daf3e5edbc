import { Hono } from "hono";
import type { AppContext } from "../context";
import { createHealthRoutes } from "./routes/health";
import { createTrackingRoutes } from "./routes/tracking";
import { createV1Routes } from "./v1";

/** Paths served by the Hono app; everything else goes to Next.js. */
const API_PREFIXES = ["/api/v1/", "/t/", "/healthz", "/readyz", "/metrics"];

export function isApiPath(pathname: string): boolean {
  return pathname === "/api/v1" || API_PREFIXES.some((p) => pathname === p.replace(/\/$/, "") || pathname.startsWith(p));
}

/** The public HTTP surface: /api/v1 (the spec's API), /t (tracking), health. */
export function createApiApp(ctx: AppContext): Hono {
  const app = new Hono({ strict: false });
  app.route("/", createHealthRoutes(ctx));
  app.route("/api/v1", createV1Routes(ctx));
  app.route("/t", createTrackingRoutes(ctx));
  return app;
}
