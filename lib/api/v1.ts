import { Hono } from "hono";
import type { AppContext } from "../context";

/** The spec's API under /api/v1. (Owned by the API work.) */
export function createV1Routes(ctx: AppContext): Hono {
  void ctx;
  return new Hono({ strict: false });
}
