import { Hono, type MiddlewareHandler } from "hono";
import type { AppContext } from "../context";
import { requireApiKey } from "../http/auth";
import type { ApiEnv } from "../http/env";
import { apiError } from "../http/errors";
import { onApiError } from "../http/on-error";
import { requestRateLimit } from "../http/rate-limit";
import { routeGuard, type RouteSpec } from "../http/route-guard";
import { createEmailRoutes } from "./routes/email";
import { createEventsRoutes } from "./routes/events";
import { createOpenApiRoutes } from "./routes/openapi";
import { createStatsRoutes } from "./routes/stats";
import { createWebhookRoutes } from "./routes/webhooks";

export const V1_PREFIX = "/api/v1";

/** Every path of /api/v1 and its methods: the source of 404 and 405 (with Allow). */
export const V1_ROUTES: RouteSpec[] = [
  { path: "/email", methods: ["POST"] },
  { path: "/events", methods: ["GET"] },
  { path: "/webhooks", methods: ["POST", "GET"] },
  { path: "/webhooks/:id", methods: ["DELETE"] },
  { path: "/stats", methods: ["GET"] },
  { path: "/openapi.json", methods: ["GET"] },
];

const PUBLIC_ROUTES = new Set([`${V1_PREFIX}/openapi.json`]);
/** POST /email has the sending limits instead of the request rate limit. */
const SEND_ROUTE = `${V1_PREFIX}/email`;

/** The spec's API under /api/v1: route guard → auth → request rate → handlers. */
export function createV1Routes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ strict: false });
  app.onError(onApiError(ctx.log));
  app.use("*", routeGuard(V1_PREFIX, V1_ROUTES));

  const auth = requireApiKey(ctx.database.db);
  const rate = requestRateLimit(ctx.config.api.requestRate);
  const guarded: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const route = c.get("route");
    if (PUBLIC_ROUTES.has(route)) return next();
    return auth(c, async () => {
      if (route === SEND_ROUTE) return next();
      // A middleware's own Response must land on c.res when it runs nested like this.
      const refused = await rate(c, next);
      if (refused) c.res = refused;
    });
  };
  app.use("*", guarded);

  app.route("/", createEmailRoutes(ctx));
  app.route("/", createEventsRoutes(ctx));
  app.route("/", createWebhookRoutes(ctx));
  app.route("/", createStatsRoutes(ctx));
  app.route("/", createOpenApiRoutes());
  // A path that the guard knows but no handler serves (never expected): the envelope, not Hono's text.
  app.all("*", (c) => apiError(c, 404));
  return app;
}
