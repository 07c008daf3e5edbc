import { Hono } from "hono";
import type { AppContext } from "../../context";
import { readAttachmentByToken } from "../../domain/inbound/messages";

/**
 * GET /t/inbound/:token (docs/contract.md §13.4): a large attachment of a
 * received message, by the signed URL its posted JSON carries. No key: the
 * token (HMAC, expiry) is the authorisation; a forged or expired one is 404.
 */
export function createInboundDownloadRoutes(ctx: AppContext): Hono {
  const app = new Hono({ strict: false });
  app.get("/inbound/:token", async (c) => {
    const secret = await ctx.trackingSecret();
    const found = await readAttachmentByToken(ctx.database, secret, c.req.param("token"));
    if (!found) return c.text("Not found", 404, { "Cache-Control": "no-store" });
    // The name as a plain token for the header: anything but letters, digits, dot, dash and space becomes "_".
    const name = found.name.replace(/[^\w.\- ]/g, "_").slice(0, 200) || "attachment";
    return c.body(new Uint8Array(found.content), 200, {
      "Content-Type": "application/octet-stream",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "private, no-store",
    });
  });
  return app;
}
