/**
 * The cross-site rule of the dashboard's cookie-authenticated route handlers
 * (docs/adr/0506-same-origin-route-handlers.md), a pure function: the same
 * check Next.js makes for server actions, applied to every method. A
 * request is refused when
 *  - it says it comes from another site: `Sec-Fetch-Site` present and
 *    neither `same-origin` nor `none` (a sibling subdomain is `same-site`:
 *    refused too, SameSite=Lax cookies do not stop it), or
 *  - it carries an `Origin` that is not the instance's own: the public URL
 *    (MAILROOM_PUBLIC_URL), or the Host the request was sent to (`null`, an
 *    opaque origin, is never ours).
 * A request with neither header (a non-browser client holding the cookie)
 * passes: no browser sends a cross-site request without them.
 */

export interface SameOriginInput {
  origin: string | null;
  secFetchSite: string | null;
  /** The Host the request was sent to (X-Forwarded-Host behind a trusted proxy). */
  host: string | null;
  /** Origins that are the instance's own (scheme://host[:port]). */
  allowedOrigins: readonly string[];
}

/** Longest Origin header read: an origin is a scheme, a host and a port. */
const MAX_ORIGIN_LENGTH = 2048;

/** Why the request is refused, or undefined when it may go on. */
export function crossSiteRefusal(input: SameOriginInput): string | undefined {
  if (input.secFetchSite !== null) {
    const site = input.secFetchSite.trim().toLowerCase();
    if (site !== "same-origin" && site !== "none") return `Refused: a ${site.slice(0, 40)} request (Sec-Fetch-Site) to the dashboard`;
  }
  if (input.origin === null) return undefined;
  if (input.origin.length > MAX_ORIGIN_LENGTH) return "Refused: the Origin is not this dashboard";
  let origin: URL;
  try {
    origin = new URL(input.origin);
  } catch {
    return "Refused: the Origin is not this dashboard";
  }
  if (origin.origin === "null") return "Refused: the Origin is not this dashboard";
  if (input.allowedOrigins.some((allowed) => sameOrigin(allowed, origin.origin))) return undefined;
  if (input.host !== null && input.host.length <= MAX_ORIGIN_LENGTH && origin.host === input.host.trim().toLowerCase()) return undefined;
  return "Refused: the Origin is not this dashboard";
}

function sameOrigin(allowed: string, origin: string): boolean {
  try {
    return new URL(allowed).origin === origin;
  } catch {
    return false;
  }
}

/** Header access of both a fetch `Request` and Node's `IncomingMessage` (server.ts). */
export type HeaderGetter = (name: string) => string | null;

/**
 * The rule above read off a request's headers: the Host is X-Forwarded-Host's
 * first entry only behind a trusted proxy (MAILROOM_TRUST_PROXY).
 */
export function requestCrossSiteRefusal(header: HeaderGetter, options: { trustProxyHops: number; allowedOrigins: readonly string[] }): string | undefined {
  const forwarded = options.trustProxyHops > 0 ? header("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  return crossSiteRefusal({
    origin: header("origin"),
    secFetchSite: header("sec-fetch-site"),
    host: forwarded || header("host"),
    allowedOrigins: options.allowedOrigins,
  });
}

/** The origins that are the instance's own: the configured and the effective public URL, and Auth.js's URL. */
export function dashboardOrigins(ctx: { publicUrl: string; config: { publicUrl: string; auth: { url?: string } } }): string[] {
  return [...new Set([ctx.config.publicUrl, ctx.publicUrl, ...(ctx.config.auth.url ? [ctx.config.auth.url] : [])])];
}
