import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { CLIENT_ADDRESS_HEADER } from "../domain/shared/client-ip";
import type { Logger } from "../logger";
import { isBodyLeftUnread } from "./body";
import type { ApiEnv } from "./env";
import type { HttpMetrics } from "./metrics";

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** A client's X-Request-Id when it is safe to log and echo, else a new one. */
export function requestIdFrom(header: string | undefined): string {
  return header && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Sets a response header, copying the response first when its headers are immutable (Response.redirect()). */
function setHeader(c: Context, name: string, value: string) {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}

/** Paths outside /api/v1 are labelled by prefix (bounded cardinality). */
function fallbackRoute(path: string): string {
  if (path.startsWith("/t/")) return "/t/*";
  if (path === "/healthz" || path === "/readyz" || path === "/metrics") return path;
  if (path.startsWith("/api/v1")) return "/api/v1/*";
  return "other";
}

/**
 * First middleware of the API app: request id in (X-Request-Id) and out, a
 * child logger that carries it, one access-log line (with the client
 * address server.ts resolved, lib/domain/shared/client-ip.ts) and the request metrics.
 */
export function requestContext(log: Logger, metrics: HttpMetrics): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    const child = log.child({ requestId });
    c.set("log", child);
    try {
      await next();
    } finally {
      setHeader(c, "X-Request-Id", requestId);
      // The rest of an oversized body is still on the wire: close rather than reuse the connection.
      if (isBodyLeftUnread(c.req.raw)) setHeader(c, "Connection", "close");
      const ms = performance.now() - started;
      const route = c.get("route") ?? fallbackRoute(c.req.path);
      const status = c.res.status;
      metrics.observe(c.req.method, route, status, ms / 1000);
      // A 503 is an outage the service handled (logged once by the outage log, docs/adr/0008): warn, not error.
      const level = status === 503 ? "warn" : status >= 500 ? "error" : "info";
      if (child.isLevelEnabled(level)) {
        const ip = c.req.header(CLIENT_ADDRESS_HEADER) ?? "";
        child[level]({ method: c.req.method, route, path: c.req.path, status, ms: Math.round(ms * 10) / 10, ip }, "request");
      }
    }
  };
}
