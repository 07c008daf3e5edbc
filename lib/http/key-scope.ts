import type { MiddlewareHandler } from "hono";
import { errorItem } from "../contract/errors";
import { requiredScope, scopeAllows, scopeRefusal } from "../domain/accounts/key-scope";
import type { ApiEnv } from "./env";
import { errorResponse } from "./errors";

/**
 * The scope check of docs/contract.md §17.2, after authentication: the
 * request's method and route pattern (set by the route guard) decide the
 * scope it needs (lib/domain/accounts/key-scope.ts); a key without it is answered
 * 403, code 403, with a Message that names both scopes.
 */
export function requireKeyScope(prefix: string): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const route = c.get("route") ?? c.req.path;
    const needed = requiredScope(c.req.method, route.startsWith(prefix) ? route.slice(prefix.length) : route);
    const scope = c.get("auth").scope;
    if (!scopeAllows(scope, needed)) return errorResponse(c, [{ ...errorItem(403), Message: scopeRefusal(scope, needed) }]);
    await next();
  };
}
