import type { MiddlewareHandler } from "hono";

/**
 * Security headers of the Hono side (docs/adr/0503, amendment). Every response gets
 * `X-Content-Type-Options: nosniff`; every text/html response (the
 * unsubscribe pages, the click fallback page, any later one) also gets a
 * Content-Security-Policy that allows nothing but its own inline style and
 * forms posting back to this origin, and may not be framed.
 *
 * Style is allowed with 'unsafe-inline' rather than a hash so that every
 * small page may carry its own <style>: with default-src 'none' (no images,
 * fonts or connections) injected CSS has no channel to leak anything, and
 * scripts stay forbidden.
 */
export const HTML_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const HTML_HEADERS: Record<string, string> = {
  "Content-Security-Policy": HTML_CSP,
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

export function isHtml(contentType: string | null): boolean {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "text/html";
}

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const html = isHtml(c.res.headers.get("content-type"));
    const set = (name: string, value: string) => {
      try {
        c.res.headers.set(name, value);
      } catch {
        c.res = new Response(c.res.body, c.res); // immutable headers (Response.redirect())
        c.res.headers.set(name, value);
      }
    };
    set("X-Content-Type-Options", "nosniff");
    if (html) for (const [name, value] of Object.entries(HTML_HEADERS)) set(name, value);
  };
}
