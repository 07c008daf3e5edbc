import { createHash, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import type { AppContext } from "../../context";
import { apiError } from "../../http/errors";

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * GET /metrics: Prometheus text format, behind `Authorization: Bearer
 * <MAILROOM_METRICS_TOKEN>`. Without a configured token the endpoint does
 * not exist (404).
 */
export function createMetricsRoutes(ctx: AppContext): Hono {
  const app = new Hono({ strict: false });
  app.get("/metrics", async (c) => {
    const token = ctx.config.metricsToken;
    if (!token) return apiError(c, 404);
    const given = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (!given || !timingSafeEqual(digest(given), digest(token))) return apiError(c, 1);
    const { registry } = ctx.httpMetrics;
    return c.body(await registry.metrics(), 200, { "Content-Type": registry.contentType });
  });
  return app;
}
