import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../logger";
import { isDatabaseUnavailable } from "../storage/unavailable";
import { apiError } from "./errors";

/**
 * The last resort: a defect answers the 500 envelope of docs/contract.md §4.3, never
 * a stack trace, and is logged with the request id.
 */
export function onApiError(log: Logger) {
  return (err: Error, c: Context): Response => {
    const reqLog = (c.get("log") as Logger | undefined) ?? log;
    if (err instanceof HTTPException && err.status < 500) {
      // Hono's own client errors (e.g. a malformed URL): never a 500.
      return apiError(c, err.status === 404 ? 404 : 422);
    }
    if (isDatabaseUnavailable(err)) {
      // An outage, not a defect: tell the client to come back shortly.
      reqLog.warn({ err: { message: err.message }, path: c.req.path }, "database unavailable");
      return apiError(c, 503, undefined, { "Retry-After": "2" });
    }
    reqLog.error({ err, method: c.req.method, path: c.req.path }, "unhandled error");
    return apiError(c, 500);
  };
}
