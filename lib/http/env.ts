import type { AuthenticatedKey } from "../domain/accounts/api-keys";
import type { Logger } from "../logger";

/** Hono environment of the /api/v1 routes: the authenticated key is set by the auth middleware. */
export interface ApiEnv {
  Variables: {
    auth: AuthenticatedKey;
    requestId: string;
    /** The request's child logger (carries requestId). */
    log: Logger;
    /** Route pattern for metrics and logs, e.g. `/api/v1/webhooks/:id`. */
    route: string;
  };
}
