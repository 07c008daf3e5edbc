import type { Context } from "hono";
import { errorItem, httpStatusOf, type ApiErrorItem, type ErrorCode } from "../contract/errors";

/**
 * The JSON error envelope of docs/contract.md §4. The HTTP status is that of the
 * first error; 429s carry Retry-After.
 */
export function errorResponse(
  c: Context,
  errors: ApiErrorItem[],
  options: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const first = errors[0]!;
  const status = options.status ?? httpStatusOf(first.Code as ErrorCode);
  return new Response(JSON.stringify({ Errors: errors }), {
    status,
    headers: { "Content-Type": "application/json", ...options.headers },
  });
}

export function apiError(c: Context, code: ErrorCode, field?: string, headers?: Record<string, string>): Response {
  return errorResponse(c, [errorItem(code, field)], { headers });
}
