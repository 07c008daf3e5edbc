import { z } from "zod";
import { emailRequestSchema, emailResponseSchema } from "../contract/email";
import { ERROR_MESSAGES, errorEnvelopeSchema } from "../contract/errors";
import { eventRecordSchema, eventsQuerySchema, eventsResponseSchema } from "../contract/events";
import { statsQuerySchema, statsResponseSchema } from "../contract/stats";
import { createWebhookRequestSchema, createWebhookResponseSchema, deleteWebhookResponseSchema, listWebhooksResponseSchema } from "../contract/webhooks";

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the zod schemas of
 * lib/contract (the same ones the server, the API client and the dashboard
 * use). JSON Schema 2020-12 is OpenAPI 3.1's schema dialect.
 */

type Json = Record<string, unknown>;

const schema = (s: z.ZodType, io: "input" | "output"): Json => {
  const out = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Json;
  delete out.$schema;
  return out;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (s: Json) => ({ "application/json": { schema: s } });

const errorTable = Object.entries(ERROR_MESSAGES)
  .map(([code, message]) => `| ${code} | ${message} |`)
  .join("\n");

const errorResponses = (statuses: number[]): Json =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description:
          {
            400: "The email request is malformed (codes 2–11, 18–31)",
            401: "Missing or invalid key (codes 1, 12, 13)",
            403: "From domain not verified (code 32)",
            404: "Resource not found (code 404)",
            405: "Method not allowed (body code 404, Allow header)",
            422: "Invalid request parameters (code 422) or all recipients suppressed (code 14)",
            429: "Rate or quota exceeded (codes 429, 17); Retry-After says when to retry",
            500: "Internal server error (code 500)",
          }[status] ?? "Error",
        content: json(ref("ErrorEnvelope")),
        ...(status === 429 && { headers: { "Retry-After": { schema: { type: "integer" } } } }),
      },
    ]),
  );

/** Integer parameters arrive as digit strings; describe them as the integers they are. */
const INTEGER_PARAMS: Record<string, Json> = {
  RetrieveCount: { type: "integer", minimum: 1, maximum: 100, default: 5 },
  StartFrom: { type: "integer", minimum: 0, default: 0 },
};

function queryParameters(shape: Record<string, z.ZodType>, required: string[] = []): Json[] {
  return Object.entries(shape).map(([name, s]) => {
    let sc = schema(s, "input");
    if (sc.pattern === "^\\d+$") sc = { ...(INTEGER_PARAMS[name] ?? { type: "integer", minimum: 0 }), description: sc.description };
    const description = (sc.description as string | undefined) ?? s.description;
    delete sc.description;
    return { name, in: "query", required: required.includes(name), ...(description && { description }), schema: sc };
  });
}

const rateLimitHeaders = {
  "X-RateLimit-Limit": { description: "Limit of the tightest sending window", schema: { type: "string" } },
  "X-RateLimit-Remaining": { description: "Emails left in that window", schema: { type: "string" } },
  "X-RateLimit-Reset": { description: "Unix seconds at which that window resets", schema: { type: "string" } },
};

export function buildOpenApiDocument(): Json {
  const eventsShape = { ...eventsQuerySchema.shape, MessageId: z.string().optional().describe("Alias of MessageID") };
  return {
    openapi: "3.1.0",
    info: {
      title: "Mailroom email API",
      version: "1.0.1",
      description:
        "SendLayer-compatible transactional email API (spec revision 1.0.1), with Mailroom's additive extensions " +
        "(`GET /stats`, `GET /openapi.json`, `Url`/`Tags`/`EventID` on event records).\n\n" +
        "Every error is `{\"Errors\":[{\"Code\":N,\"Message\":\"...\",\"Field\":\"...\"}]}`.\n\n| Code | Message |\n|---|---|\n" +
        errorTable,
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearerAuth: [] }],
    paths: {
      "/email": {
        post: {
          operationId: "sendEmail",
          summary: "Send one message",
          requestBody: { required: true, content: json(ref("EmailRequest")) },
          responses: {
            "200": { description: "Accepted and stored durably", headers: rateLimitHeaders, content: json(ref("EmailResponse")) },
            ...errorResponses([400, 401, 403, 422, 429, 500]),
          },
        },
      },
      "/events": {
        get: {
          operationId: "listEvents",
          summary: "Read the event log, newest first",
          parameters: queryParameters(eventsShape),
          responses: { "200": { description: "A page of events", content: json(ref("EventsResponse")) }, ...errorResponses([401, 422, 429, 500]) },
        },
      },
      "/webhooks": {
        post: {
          operationId: "createWebhook",
          summary: "Register a webhook",
          requestBody: { required: true, content: json(schema(createWebhookRequestSchema, "input")) },
          responses: {
            "200": { description: "Created", content: json(schema(createWebhookResponseSchema, "output")) },
            ...errorResponses([401, 422, 429, 500]),
          },
        },
        get: {
          operationId: "listWebhooks",
          summary: "List webhooks, ordered by WebhookID",
          responses: {
            "200": { description: "The account's webhooks", content: json(schema(listWebhooksResponseSchema, "output")) },
            ...errorResponses([401, 429, 500]),
          },
        },
      },
      "/webhooks/{id}": {
        delete: {
          operationId: "deleteWebhook",
          summary: "Delete a webhook",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
          responses: {
            "200": { description: "Deleted", content: json(schema(deleteWebhookResponseSchema, "output")) },
            ...errorResponses([401, 404, 422, 429, 500]),
          },
        },
      },
      "/stats": {
        get: {
          operationId: "getStats",
          summary: "Extension: counts per event type per hour or day",
          parameters: queryParameters(statsQuerySchema.shape, ["StartDate", "EndDate"]),
          responses: { "200": { description: "Buckets and totals", content: json(ref("StatsResponse")) }, ...errorResponses([401, 422, 429, 500]) },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getOpenApi",
          summary: "Extension: this document",
          security: [],
          responses: { "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas: {
        EmailRequest: schema(emailRequestSchema, "input"),
        EmailResponse: schema(emailResponseSchema, "output"),
        EventRecord: schema(eventRecordSchema, "output"),
        EventsResponse: schema(eventsResponseSchema, "output"),
        StatsResponse: schema(statsResponseSchema, "output"),
        ErrorEnvelope: schema(errorEnvelopeSchema, "output"),
      },
    },
  };
}
