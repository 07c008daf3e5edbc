import { Hono } from "hono";
import type { AppContext } from "../../context";
import { readAttachmentByToken } from "../../domain/inbound/messages";
import { ParseGate } from "../../domain/inbound/parse-gate";

/**
 * GET /t/inbound/:token (docs/contract.md §13.4): a large attachment of a
 * received message, by the signed URL its posted JSON carries. No key: the
 * token (HMAC, expiry) is the authorisation; a forged or expired one is 404.
 */
export function createInboundDownloadRoutes(ctx: AppContext): Hono {
  const app = new Hono({ strict: false });
  // Each download parses its whole message: 2 at once per process, 8 in line, the rest 503 (docs/adr/0807).
  const gate = new ParseGate(2, 8);
  app.get("/inbound/:token", async (c) => {
    const secret = await ctx.trackingSecret();
    const found = await readAttachmentByToken(ctx.database, secret, c.req.param("token"), gate);
    if (!found) return c.text("Not found", 404, { "Cache-Control": "no-store" });
    if (found === "busy") return c.text("Busy, try again later", 503, { "Cache-Control": "no-store", "Retry-After": "1" });
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
