import "server-only";
import { getServerContext } from "../runtime";
import { dashboardOrigins, requestCrossSiteRefusal } from "./same-origin";

/**
 * THE guard of every route handler the session cookie authenticates
 * (docs/adr/0506-same-origin-route-handlers.md): `export const POST =
 * sameOriginRoute(async (request, context) => ...)`. Before the handler
 * runs (before the session is even read) a cross-site request is answered
 * 403 with the JSON error envelope; the rule is `crossSiteRefusal`
 * (same-origin.ts). lib/dashboard/route-guard.test.ts fails for a route
 * handler under app/ that is not wrapped.
 */
export function sameOriginRoute<C>(handler: (request: Request, context: C) => Promise<Response>): (request: Request, context: C) => Promise<Response> {
  return async (request, context) => {
    const ctx = getServerContext();
    const refusal = requestCrossSiteRefusal((name) => request.headers.get(name), { trustProxyHops: ctx.config.trustProxyHops, allowedOrigins: dashboardOrigins(ctx) });
    if (refusal) return Response.json({ error: refusal }, { status: 403, headers: { "Cache-Control": "no-store" } });
    return handler(request, context);
  };
}
