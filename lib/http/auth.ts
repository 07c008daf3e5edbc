import type { MiddlewareHandler } from "hono";
import { authenticateApiKey, type ApiKeyAuthCache } from "../domain/accounts/api-keys";
import type { Queryable } from "../storage/database";
import type { ApiEnv } from "./env";
import { apiError } from "./errors";

/** docs/contract.md §3: Bearer key → 401 with code 1, 13 or 12; else `c.get('auth')`. */
export function requireApiKey(database: Queryable, cache: ApiKeyAuthCache): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const result = await authenticateApiKey(database, c.req.header("authorization"), cache);
    if (!result.ok) return apiError(c, result.code);
    c.set("auth", result.key);
    c.get("log")?.setBindings({ accountId: result.key.accountId, keyId: result.key.keyId });
    await next();
  };
}
