import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "./env";
import { apiError } from "./errors";

/**
 * Known paths and their methods, checked before anything else: an unknown
 * path is a 404 envelope, a known path with a method it does not serve is a
 * 405 with `Allow` and body code 404 (docs/contract.md §4.3). A trailing slash is the
 * same path. On a match, `c.get('route')` names the pattern.
 */
export interface RouteSpec {
  /** Relative to the mount prefix, e.g. `/webhooks/:id`. */
  path: string;
  methods: string[];
}

/**
 * The table of the routes an app registered, e.g. from its OpenAPI registry:
 * `{id}` path parameters become `:id`; a path's methods keep their
 * registration order (the order of `Allow`).
 */
export function routeTableOf(routes: readonly { method: string; path: string }[]): RouteSpec[] {
  const table = new Map<string, string[]>();
  for (const route of routes) {
    const path = route.path.replace(/\{([^}/]+)\}/g, ":$1");
    const methods = table.get(path) ?? [];
    const method = route.method.toUpperCase();
    if (!methods.includes(method)) methods.push(method);
    table.set(path, methods);
  }
  return [...table].map(([path, methods]) => ({ path, methods }));
}

interface Compiled extends RouteSpec {
  regex: RegExp;
  allow: string;
}

function compile(spec: RouteSpec): Compiled {
  const source = spec.path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  const methods = spec.methods.includes("GET") && !spec.methods.includes("HEAD") ? [...spec.methods, "HEAD"] : spec.methods;
  return { ...spec, methods, regex: new RegExp(`^${source}$`), allow: methods.join(", ") };
}

export function routeGuard(prefix: string, routes: RouteSpec[]): MiddlewareHandler<ApiEnv> {
  const compiled = routes.map(compile);
  return async (c, next) => {
    let path = c.req.path;
    if (path.startsWith(prefix)) path = path.slice(prefix.length);
    // Trailing slashes off, by position: `/\/+$/` was quadratic on a path of many slashes (linear-time parsing of untrusted input, docs/ARCHITECTURE.md).
    let end = path.length;
    while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
    path = path.slice(0, end) || "/";
    const match = compiled.find((r) => r.regex.test(path));
    if (!match) return apiError(c, 404);
    c.set("route", prefix + match.path);
    if (!match.methods.includes(c.req.method)) {
      const res = apiError(c, 404);
      return new Response(res.body, { status: 405, headers: { "Content-Type": "application/json", Allow: match.allow } });
    }
    await next();
  };
}
