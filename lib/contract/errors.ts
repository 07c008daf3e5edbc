import { z } from "zod";

/** The spec's error table: code → exact message (docs/contract.md §4.1). */
export const ERROR_MESSAGES = {
  1: "Missing SenderAPIKey",
  2: "Missing FromName",
  3: "Missing FromEmail",
  4: "Missing ReplyToName",
  5: "Missing ReplyToEmail",
  6: "Missing ToName",
  7: "Missing ToEmail",
  8: "Missing Subject",
  9: "Missing ContentType",
  10: "Missing HTMLContent",
  11: "Missing PlainContent",
  12: "Invalid user",
  13: "Invalid sender API key",
  14: "Recipient email is suppressed",
  15: "Invalid TemplateID",
  16: "Invalid TargetListID",
  17: "Email quota reached",
  18: "Recipient name or email address is missing",
  19: "Recipient email address is invalid",
  20: "No recipient is set, or the recipient count exceeds the allowed count",
  21: "CC name or email address is missing",
  22: "CC email address is invalid",
  23: "Invalid from email address format",
  24: "BCC addresses must be set as an array",
  25: "BCC name or email address is missing",
  26: "BCC email address is invalid",
  27: "BCC address count exceeds the allowed count",
  28: "Reply-To addresses must be set as an array",
  29: "Reply-To name or email address is missing",
  30: "Reply-To email address is invalid",
  31: "Reply-To address count exceeds the allowed count",
  32: "Domain is not activated",
  // Extension: the API key's scope does not allow the request (docs/contract.md §17.2); the Message sent names the scopes.
  403: "API key scope does not allow this request",
  404: "Resource not found",
  // Extension: an Idempotency-Key that other requests keep claiming and releasing (docs/adr/0110).
  409: "Idempotency-Key in use by another request",
  // Extension: a body over the bound of a path that takes little or none (/t/*, /healthz, /metrics).
  413: "Request body too large",
  422: "Invalid request parameters",
  429: "Too many requests",
  500: "Internal server error",
  // Extension: the database is unreachable for a moment (restart, failover).
  503: "Service unavailable",
  // Extension: the server's disk is full (or below its reserve): nothing new can be stored for now. HTTP 503 with Retry-After.
  507: "Service unavailable: the server's disk is full",
} as const;

export type ErrorCode = keyof typeof ERROR_MESSAGES;

/** docs/contract.md §4.3. */
export function httpStatusOf(code: ErrorCode): number {
  if (code === 1 || code === 12 || code === 13) return 401;
  if (code === 32 || code === 403) return 403;
  if (code === 14) return 422;
  if (code === 17 || code === 429) return 429;
  if (code === 404) return 404;
  if (code === 409) return 409;
  if (code === 413) return 413;
  if (code === 422) return 422;
  if (code === 500) return 500;
  if (code === 503 || code === 507) return 503;
  return 400; // 2–11, 15, 16, 18–31: the email request is malformed
}

export const apiErrorSchema = z.object({
  Code: z.number().int(),
  Message: z.string(),
  Field: z.string().optional(),
});
export const errorEnvelopeSchema = z.object({ Errors: z.array(apiErrorSchema).min(1) });

export type ApiErrorItem = z.infer<typeof apiErrorSchema>;
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

export function errorItem(code: ErrorCode, field?: string): ApiErrorItem {
  return field === undefined ? { Code: code, Message: ERROR_MESSAGES[code] } : { Code: code, Message: ERROR_MESSAGES[code], Field: field };
}
