import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono, type Context } from "hono";
import type { AppContext } from "../../context";
import { decodeTrackingToken, type TrackingToken } from "../../tracking/tracking-tokens";
import { clickTarget } from "../../domain/tracking/click-target";
import { normalizeIp, requestClientIp } from "../../domain/shared/client-ip";
import { geolocate } from "../../domain/tracking/geolocation";
import { findRecipient, recordEngagement, type RecipientRef } from "../../domain/events/recipient-events";
import { findTrackedLink } from "../../domain/tracking/tracked-links";

/**
 * Tracking under /t (docs/contract.md §11, §12.5):
 *   GET  /t/o/:token   open pixel (1×1 GIF) → `opened`
 *   GET  /t/c/:token   302 to the stored URL (as the URL parser serialises it; a page
 *                      with the link when it cannot) → `clicked` with Url
 *   GET  /t/u/:token   confirmation page (a GET never unsubscribes: link scanners fetch it)
 *   POST /t/u/:token   the page's button, or RFC 8058 one-click → `unsubscribed`
 * A token that fails its signature check is a 404, like any unknown path.
 */

const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const NO_STORE = { "Cache-Control": "no-store, no-cache, must-revalidate, private", Pragma: "no-cache" };

function notFound(): Response {
  return new Response(JSON.stringify({ Errors: [{ Code: 404, Message: "Resource not found" }] }), {
    status: 404,
    headers: { "Content-Type": "application/json" },
  });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2937}button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#1f2937;color:#fff;cursor:pointer}</style></head><body>${body}</body></html>`;
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8", ...NO_STORE } });
}

export function createTrackingRoutes(ctx: AppContext): Hono {
  const app = new Hono({ strict: false });
  const deps = { database: ctx.database, boss: ctx.boss };

  const resolve = async (c: Context, kind: TrackingToken["kind"]): Promise<{ token: TrackingToken; recipient: RecipientRef } | undefined> => {
    const text = c.req.param("token")?.replace(/\.gif$/i, "") ?? "";
    const secret = await ctx.trackingSecret();
    const token = decodeTrackingToken(secret, text);
    if (!token || token.kind !== kind) return undefined;
    const recipient = await findRecipient(ctx.database, token.recipientId);
    if (!recipient || recipient.messageId !== token.messageId) return undefined;
    return { token, recipient };
  };

  const where = async (c: Context) => {
    // Resolved by server.ts (MAILROOM_TRUST_PROXY, lib/domain/shared/client-ip.ts); the socket when the app is mounted elsewhere.
    let ip = requestClientIp(c.req.raw.headers);
    if (!ip) {
      try {
        ip = normalizeIp(getConnInfo(c).remote.address ?? "");
      } catch {
        ip = "";
      }
    }
    return { ip, geo: await geolocate(ip) };
  };

  app.get("/o/:token", async (c) => {
    const found = await resolve(c, "o");
    if (!found) return notFound();
    await recordEngagement(deps, found.recipient, { type: "opened", ...(await where(c)) });
    return new Response(PIXEL, { headers: { "Content-Type": "image/gif", "Content-Length": String(PIXEL.length), ...NO_STORE } });
  });

  app.get("/c/:token", async (c) => {
    const found = await resolve(c, "c");
    if (!found) return notFound();
    const url = await findTrackedLink(ctx.database, found.token.messageId, found.token.link ?? -1);
    if (!url) return notFound();
    // The answer is built first: once `clicked` is logged, nothing is left that could fail.
    const target = clickTarget(url);
    const response =
      target.kind === "redirect"
        ? new Response(null, { status: 302, headers: { Location: target.location, ...NO_STORE } })
        : page("Link", `<h1>This link cannot be opened directly</h1><p>The address it points to:</p><p><a href="${escapeHtml(target.url)}" rel="noopener noreferrer">${escapeHtml(target.url)}</a></p>`);
    await recordEngagement(deps, found.recipient, { type: "clicked", url, ...(await where(c)) });
    return response;
  });

  app.get("/u/:token", async (c) => {
    const found = await resolve(c, "u");
    if (!found) return page("Link not valid", "<h1>This unsubscribe link is not valid</h1><p>It may have been copied incompletely.</p>", 404);
    const email = escapeHtml(found.recipient.email);
    return page(
      "Unsubscribe",
      `<h1>Unsubscribe</h1><p>Stop receiving these emails at <strong>${email}</strong>?</p><form method="post"><input type="hidden" name="confirm" value="yes"><button type="submit">Unsubscribe</button></form>`,
    );
  });

  app.post("/u/:token", async (c) => {
    const found = await resolve(c, "u");
    const body = await c.req.text().catch(() => "");
    const isOneClick = /(^|&)List-Unsubscribe=One-Click(&|$)/i.test(body.trim());
    if (!found) {
      return isOneClick ? notFound() : page("Link not valid", "<h1>This unsubscribe link is not valid</h1>", 404);
    }
    await recordEngagement(deps, found.recipient, {
      type: "unsubscribed",
      reason: isOneClick ? "The recipient unsubscribed with one-click (RFC 8058)" : "The recipient unsubscribed on the unsubscribe page",
      ...(await where(c)),
    });
    if (isOneClick) return new Response("Unsubscribed\n", { headers: { "Content-Type": "text/plain; charset=utf-8", ...NO_STORE } });
    return page("Unsubscribed", `<h1>You are unsubscribed</h1><p>${escapeHtml(found.recipient.email)} will not receive these emails any more.</p>`);
  });

  return app;
}
