import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { BacklogFullError } from "../domain/sending/delivery-backlog";
import type { Logger } from "../logger";
import type { OutageLog } from "../storage/outage-log";
import { databaseFaultOf } from "../storage/unavailable";
import { apiError } from "./errors";

/** Seconds a client waits before retrying: an unreachable database is usually back in seconds; space is freed by an operator. */
export const RETRY_AFTER_SECONDS = { unavailable: 2, "disk-full": 30 } as const;

/**
 * The last resort: a defect answers the 500 envelope of docs/contract.md §4.3, never
 * a stack trace, and is logged with the request id.
 */
export function onApiError(log: Logger, outage?: Pick<OutageLog, "report">) {
  return (err: Error, c: Context): Response => {
    const reqLog = (c.get("log") as Logger | undefined) ?? log;
    // The delivery backlog at its maximum (docs/contract.md §18), met by a send path other than POST /email's own answer.
    if (err instanceof BacklogFullError) return apiError(c, 429, undefined, { "Retry-After": String(err.retryAfter) });
    if (err instanceof HTTPException && err.status < 500) {
      // Hono's own client errors (e.g. a malformed URL): never a 500.
      return apiError(c, err.status === 404 ? 404 : 422);
    }
    // An outage, not a defect: tell the client to come back shortly. Logged
    // at error once per outage, counted after that (docs/adr/0008).
    const fault = outage ? outage.report("api", err, { path: c.req.path, requestId: c.get("requestId") as string | undefined }) : databaseFaultOf(err);
    if (fault) {
      if (!outage) reqLog.warn({ err: { message: err.message }, path: c.req.path }, fault === "disk-full" ? "database disk full" : "database unavailable");
      return apiError(c, fault === "disk-full" ? 507 : 503, undefined, { "Retry-After": String(RETRY_AFTER_SECONDS[fault]) });
    }
    reqLog.error({ err, method: c.req.method, path: c.req.path }, "unhandled error");
    return apiError(c, 500);
  };
}
