import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "./env";
import { apiError } from "./errors";
import { TokenBuckets } from "./token-bucket";

/** Request rate per API key for the endpoints other than POST /email: 429 with Retry-After past it. */
export function requestRateLimit(options: { ratePerSecond: number; burst: number }): MiddlewareHandler<ApiEnv> {
  const buckets = new TokenBuckets(options);
  return async (c, next) => {
    const taken = buckets.take(c.get("auth").keyId);
    if (!taken.ok) return apiError(c, 429, undefined, { "Retry-After": String(taken.retryAfterSeconds) });
    await next();
  };
}
