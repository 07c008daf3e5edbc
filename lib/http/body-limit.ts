import type { MiddlewareHandler } from "hono";
import { errorItem } from "../contract/errors";
import { markBodyLeftUnread, readBytes } from "./body";

/**
 * A request-body bound for routes that take little or no body (the
 * tracking routes: the RFC 8058 one-click body is 26 bytes). Enforced
 * before anything reads the body, whether or not Content-Length is sent:
 * - a declared Content-Length over the bound: 413 at once, nothing read;
 * - a body without Content-Length (chunked): read up to the bound, 413 as
 *   soon as it is passed (the rest is never read);
 * - a body on GET/HEAD without Content-Length: 413 (nothing reads it, and
 *   Node would otherwise drain it after the response);
 * and the connection is closed after a 413 rather than drained for reuse.
 * A body within the bound is handed on as bytes already read.
 */

export const TRACKING_BODY_LIMIT_BYTES = 4 * 1024;

function tooLarge(request: Request): Response {
  markBodyLeftUnread(request);
  return new Response(JSON.stringify({ Errors: [errorItem(413)] }), {
    status: 413,
    headers: { "Content-Type": "application/json", Connection: "close" },
  });
}

export function bodyLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw;
    const declared = request.headers.get("content-length");
    const chunked = request.headers.has("transfer-encoding");
    if (declared !== null && !chunked) {
      // The HTTP parser holds the body to its declared length.
      if (!/^\d+$/.test(declared) || Number(declared) > maxBytes) return tooLarge(request);
      return next();
    }
    if (!request.body) {
      // @hono/node-server gives GET/HEAD no body stream even when one is on the wire.
      return chunked ? tooLarge(request) : next();
    }
    const bytes = await readBytes(request, maxBytes);
    if (!bytes) return tooLarge(request);
    c.req.raw = new Request(request, { body: bytes as Uint8Array<ArrayBuffer> });
    return next();
  };
}
