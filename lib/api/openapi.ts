import { extendZodWithOpenApi, type OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { emailRequestSchema, emailResponseSchema } from "../contract/email";
import { ERROR_MESSAGES, errorEnvelopeSchema, httpStatusOf, type ErrorCode } from "../contract/errors";
import { eventRecordSchema, eventsResponseSchema } from "../contract/events";
import { statsResponseSchema } from "../contract/stats";
import { replayRequestSchema } from "../contract/webhook-deliveries";
import { createWebhookRequestSchema } from "../contract/webhooks";
import { renderTemplateRequestSchema, renderDraftRequestSchema, templateRequestSchema } from "../contract/templates";
import { createInboundRouteRequestSchema } from "../contract/inbound";
import type { ApiEnv } from "../http/env";

/**
 * What the /api/v1 routes share in their OpenAPI 3.1 document: the named
 * component schemas (the lib/contract zod schemas), one response component
 * per error status, the bearer security scheme and the document's header.
 * The paths come from the `createRoute` definitions of lib/api/routes; the
 * document is `getOpenAPI31Document` of the app they are registered on.
 */

// What importing @hono/zod-openapi does; said here because named() relies on it.
extendZodWithOpenApi(z);

/**
 * A contract schema named as a component. Through a clone: zod 4 copies the
 * `.openapi()` that @hono/zod-openapi adds to its prototype only onto schemas
 * built after that import, and lib/contract's may be older. The clone
 * validates the same and keeps the description.
 */
function named<T extends z.ZodType>(name: string, schema: T): T {
  return schema.clone().openapi(name);
}

/** Named schemas of response bodies, rendered as `#/components/schemas/<name>` wherever a route uses them. */
export const EmailResponse = named("EmailResponse", emailResponseSchema);
export const EventsResponse = named("EventsResponse", eventsResponseSchema);
export const StatsResponse = named("StatsResponse", statsResponseSchema);

/**
 * Request bodies are documented by reference, not declared as zod schemas:
 * a zod body in `createRoute` installs hono's JSON validator, which reads the
 * body without our byte cap, refuses other Content-Types with 415 and decides
 * which error wins. Bodies are read by lib/http/body and checked by the
 * domain (POST /email) or by the contract schema (POST /webhooks) instead.
 */
const BODY_SCHEMAS = {
  EmailRequest: emailRequestSchema,
  CreateWebhookRequest: createWebhookRequestSchema,
  ReplayRequest: replayRequestSchema,
  TemplateRequest: templateRequestSchema,
  RenderTemplateRequest: renderTemplateRequestSchema,
  RenderDraftRequest: renderDraftRequestSchema,
  CreateInboundRouteRequest: createInboundRouteRequestSchema,
};
export const bodyOf = (name: keyof typeof BODY_SCHEMAS) => ({
  required: true,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
});

/** Codes of the spec's table that belong to SendLayer features Mailroom does not have (lists): never sent. Code 15 is sent for templates (docs/contract.md §14). */
const NEVER_SENT = new Set<number>([16]);

/** Every HTTP status an error envelope can have, its response component and what it means. */
const ERROR_STATUSES = {
  400: { name: "BadRequest", what: "The email request (or a template's Subject and bodies) is malformed (the status of the first error); code 15 for an unknown, archived or another account's TemplateID." },
  401: { name: "Unauthorized", what: "Missing or invalid API key." },
  403: {
    name: "Forbidden",
    what: "The From domain is not a verified domain of the account, or not one of the key's sender domains (code 32); the API key's scope does not allow the request (code 403, docs/contract.md §17.2).",
  },
  404: { name: "NotFound", what: "Unknown path, or unknown or another account's webhook id or template (an archived template too)." },
  409: {
    name: "Conflict",
    what:
      "POST /email: the `Idempotency-Key` is held by other requests that keep releasing it; retry with the same key. " +
      "PATCH /email/{MessageID}, POST /email/{MessageID}/cancel: delivery has started or the message was cancelled (code 409, its own message).",
  },
  422: {
    name: "UnprocessableEntity",
    what: "Malformed JSON, wrong types, bad query parameters, invalid webhook input, body too large (code 422, `Field` names the input); every recipient suppressed (code 14).",
  },
  429: {
    name: "TooManyRequests",
    what:
      "Sending rate, daily quota or request rate exceeded; on POST /email and the batch endpoint also more than MAILROOM_MAX_BACKLOG messages " +
      "waiting for delivery (code 429, nothing stored, docs/contract.md §18). `Retry-After` says when to retry.",
  },
  500: { name: "InternalServerError", what: "A defect; never a stack trace (it is logged with the request id)." },
  503: {
    name: "ServiceUnavailable",
    what: "The database is unreachable for a moment (code 503), or the server's disk is full or below its reserve (code 507): an outage, not a defect; `Retry-After` says when to retry.",
  },
} as const;
type ErrorStatus = keyof typeof ERROR_STATUSES;

/** The codes whose error gives `status` when it is the first of the envelope, from the contract's table. */
function codesOfStatus(status: ErrorStatus): ErrorCode[] {
  return (Object.keys(ERROR_MESSAGES).map(Number) as ErrorCode[]).filter((code) => !NEVER_SENT.has(code) && httpStatusOf(code) === status);
}

const codeTable = (codes: number[]) =>
  ["| Code | Message |", "|---|---|", ...codes.map((code) => `| ${code} | ${ERROR_MESSAGES[code as ErrorCode]} |`)].join("\n");

/** `responses` entries of a route for the error statuses it can answer with. */
export function errorResponses<const S extends ErrorStatus>(...statuses: S[]): Record<S, { $ref: string }> {
  return Object.fromEntries(statuses.map((s) => [s, { $ref: `#/components/responses/${ERROR_STATUSES[s].name}` }])) as Record<S, { $ref: string }>;
}

/** Every operation that needs a key can also answer these. */
export const COMMON_ERRORS = [401, 403, 429, 500, 503] as const;

const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" as const, minimum: 1 } } };

/** Registers the shared components; call once on the app the routes are registered on. */
export function registerComponents(app: OpenAPIHono<ApiEnv>): void {
  const registry = app.openAPIRegistry;
  registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key of the account: `Authorization: Bearer <key>` (the scheme word in any case).",
  });
  for (const [name, schema] of Object.entries(BODY_SCHEMAS)) registry.register(name, schema.clone());
  registry.register("EventRecord", eventRecordSchema.clone());
  registry.register("ErrorEnvelope", errorEnvelopeSchema.clone());
  for (const [status, { name, what }] of Object.entries(ERROR_STATUSES)) {
    const s = Number(status) as ErrorStatus;
    registry.registerComponent("responses", name, {
      description: `${what}\n\n${codeTable(codesOfStatus(s))}`,
      ...((s === 429 || s === 503) && { headers: retryAfter }),
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
    });
  }
}

/** The document's header (everything but paths and components). */
export const DOCUMENT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Mailroom email API",
    version: "1.0.1",
    description:
      "SendLayer-compatible transactional email API (spec revision 1.0.1), with Mailroom's additive extensions " +
      "(`GET /stats`, `GET /openapi.json`, `Url`/`Tags`/`EventID` on event records).\n\n" +
      'Every error is `{"Errors":[{"Code":N,"Message":"...","Field":"..."}]}` (`Field` optional); the HTTP status is that of the first error. ' +
      "An unknown path answers 404 (code 404); a known path with a method it does not serve answers 405 with `Allow` and body code 404.\n\n" +
      codeTable(Object.keys(ERROR_MESSAGES).map(Number)),
  },
  servers: [{ url: "/api/v1" }],
  security: [{ bearerAuth: [] }],
};
