import { Hono } from "hono";
import type { AppContext } from "../../context";

/** Open pixel, click redirect and unsubscribe under /t. (Owned by the "Delivery engine" work.) */
export function createTrackingRoutes(ctx: AppContext): Hono {
  void ctx;
  return new Hono({ strict: false });
}
