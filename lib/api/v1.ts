import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import type { AppContext } from "../context";
import { requireApiKey } from "../http/auth";
import type { ApiEnv } from "../http/env";
import { requireKeyScope } from "../http/key-scope";
import { apiError } from "../http/errors";
import { onApiError } from "../http/on-error";
import { requestRateLimit } from "../http/rate-limit";
import { routeGuard, routeTableOf } from "../http/route-guard";
import { refusePausedSending, sendAdmission } from "../http/send-admission";
import { validationHook } from "../http/validation";
import { registerComponents } from "./openapi";
import { addBatchRoutes } from "./routes/batch";
import { addDmarcRoutes } from "./routes/dmarc";
import { addDomainRoutes } from "./routes/domains";
import { addEmailRoutes } from "./routes/email";
import { addEventsRoutes } from "./routes/events";
import { addInboundRoutes } from "./routes/inbound";
import { addOpenApiRoute } from "./routes/openapi";
import { addReputationRoutes } from "./routes/reputation";
import { addScheduledRoutes } from "./routes/scheduled";
import { addStatsRoutes } from "./routes/stats";
import { addSuppressionRoutes } from "./routes/suppressions";
import { addTemplateRoutes } from "./routes/templates";
import { addWebhookRoutes } from "./routes/webhooks";
import { addWebhookDeliveryRoutes } from "./routes/webhook-deliveries";

const V1_PREFIX = "/api/v1";

/** POST /email and POST /email/batch have the sending limits instead of the request rate limit. */
const SEND_ROUTE = `${V1_PREFIX}/email`;
const BATCH_ROUTE = `${V1_PREFIX}/email/batch`;

/** The POST routes that send or render: each account's requests of them wait in its own line (docs/adr/0133). */
const ADMITTED_ROUTES = new Set([SEND_ROUTE, BATCH_ROUTE, `${V1_PREFIX}/templates/:id/render`, `${V1_PREFIX}/templates/render`]);

/**
 * The endpoints of /api/v1, each defined once with `createRoute` (its
 * parameters, body, responses and security): they serve the requests, make
 * the 404/405 table and generate /api/v1/openapi.json.
 */
function createV1Endpoints(ctx: AppContext): OpenAPIHono<ApiEnv> {
  const endpoints = new OpenAPIHono<ApiEnv>({ strict: false, defaultHook: validationHook });
  registerComponents(endpoints);
  addEmailRoutes(endpoints, ctx);
  // Before /email/{MessageID}: its static paths win (docs/contract.md §15).
  addBatchRoutes(endpoints, ctx);
  addScheduledRoutes(endpoints, ctx);
  addEventsRoutes(endpoints, ctx);
  addWebhookRoutes(endpoints, ctx);
  addWebhookDeliveryRoutes(endpoints, ctx);
  addStatsRoutes(endpoints, ctx);
  addSuppressionRoutes(endpoints, ctx);
  addTemplateRoutes(endpoints, ctx);
  addInboundRoutes(endpoints, ctx);
  addDomainRoutes(endpoints, ctx);
  addReputationRoutes(endpoints, ctx);
  addDmarcRoutes(endpoints, ctx);
  addOpenApiRoute(endpoints);
  return endpoints;
}

/** The registered routes, in registration order, with whether they need a key (`security: []` = public). */
function registeredRoutes(endpoints: OpenAPIHono<ApiEnv>) {
  return endpoints.openAPIRegistry.definitions.flatMap((d) =>
    d.type === "route" ? [{ method: d.route.method, path: d.route.path, isPublic: d.route.security?.length === 0 }] : [],
  );
}

/** The spec's API under /api/v1: route guard (404/405) → auth → request rate → the endpoints. */
export function createV1Routes(ctx: AppContext): Hono<ApiEnv> {
  const endpoints = createV1Endpoints(ctx);
  const routes = registeredRoutes(endpoints);
  // A path is public when every method registered on it is.
  const isPublicPath = (path: string) => routes.every((r) => r.path !== path || r.isPublic);
  const publicRoutes = new Set(routeTableOf(routes.filter((r) => isPublicPath(r.path))).map((r) => V1_PREFIX + r.path));

  const app = new Hono<ApiEnv>({ strict: false });
  app.onError(onApiError(ctx.log, ctx.outage));
  app.use("*", routeGuard(V1_PREFIX, routeTableOf(routes)));

  const auth = requireApiKey(ctx.database, ctx.apiKeyAuth);
  const rate = requestRateLimit(ctx.config.api.requestRate);
  const scope = requireKeyScope(V1_PREFIX);
  const admission = sendAdmission(ctx.config.api.sendAdmission);
  const guarded: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const route = c.get("route");
    if (publicRoutes.has(route)) return next();
    const post = c.req.method === "POST";
    // A middleware's own Response must land on c.res when it runs nested like this.
    const admitted = ADMITTED_ROUTES.has(route) && post
      ? async () => {
          const refused = await admission(c, next);
          if (refused) c.res = refused;
        }
      : next;
    return auth(c, async () => {
      const outOfScope = await scope(c, async () => {
        // Sending has its own limits (docs/contract.md §6): no request rate on top.
        if ((route === SEND_ROUTE || route === BATCH_ROUTE) && post) {
          // An account the reputation guardrails paused sends nothing (docs/adr/0136).
          const paused = refusePausedSending(c);
          if (paused) {
            c.res = paused;
            return;
          }
          return admitted();
        }
        const refused = await rate(c, admitted);
        if (refused) c.res = refused;
      });
      if (outOfScope) c.res = outOfScope;
    });
  };
  app.use("*", guarded);

  app.route("/", endpoints);
  // A path that the guard knows but no handler serves (never expected): the envelope, not Hono's text.
  app.all("*", (c) => apiError(c, 404));
  return app;
}
