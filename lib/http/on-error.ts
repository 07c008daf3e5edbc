import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../logger";
import { apiError } from "./errors";

/**
 * The last resort: a defect answers the 500 envelope of CONTRACT.md, never
 * a stack trace, and is logged with the request id.
 */
export function onApiError(log: Logger) {
  return (err: Error, c: Context): Response => {
    const reqLog = (c.get("log") as Logger | undefined) ?? log;
    if (err instanceof HTTPException && err.status < 500) {
      // Hono's own client errors (e.g. a malformed URL): never a 500.
      return apiError(c, err.status === 404 ? 404 : 422);
    }
    reqLog.error({ err, method: c.req.method, path: c.req.path }, "unhandled error");
    return apiError(c, 500);
  };
}
