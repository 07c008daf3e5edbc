import type { AuthenticatedKey } from "../domain/api-keys";

/** Hono environment of the /api/v1 routes: the authenticated key is set by the auth middleware. */
export interface ApiEnv {
  Variables: {
    auth: AuthenticatedKey;
    requestId: string;
  };
}
