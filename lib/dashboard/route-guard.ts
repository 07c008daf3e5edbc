import "server-only";
import { getServerContext } from "../runtime";
import { crossSiteRefusal } from "./same-origin";

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
    const refusal = crossSiteRefusal({
      origin: request.headers.get("origin"),
      secFetchSite: request.headers.get("sec-fetch-site"),
      host: requestHost(request),
      allowedOrigins: allowedOrigins(),
    });
    if (refusal) return Response.json({ error: refusal }, { status: 403, headers: { "Cache-Control": "no-store" } });
    return handler(request, context);
  };
}

function requestHost(request: Request): string | null {
  const ctx = getServerContext();
  const forwarded = ctx.config.trustProxyHops > 0 ? request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  return forwarded || request.headers.get("host");
}

function allowedOrigins(): string[] {
  const ctx = getServerContext();
  return [...new Set([ctx.config.publicUrl, ctx.publicUrl, ...(ctx.config.auth.url ? [ctx.config.auth.url] : [])])];
}
