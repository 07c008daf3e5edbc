import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { emailRequestSchema } from "../contract/email";
import { EVENT_TYPES, ACCEPTED_ALIAS, eventsQuerySchema, MAX_RETRIEVE_COUNT } from "../contract/events";
import { SUPPRESSION_REASONS, suppressionsQuerySchema } from "../contract/suppressions";
import { createWebhookRequestSchema, webhookIdParamSchema } from "../contract/webhooks";

/**
 * The MCP tools of docs/contract.md §17.4 (docs/adr/0900). Each one is a call
 * of the public API with the caller's key, made by `call`: over HTTP for
 * `mailroom mcp` (stdio), in-process for POST /mcp. Authentication, scope,
 * sender domains, limits and validation are therefore the API's own. Inputs
 * are the contract's schemas; a query's numbers are sent as the strings the
 * contract's query schema parses, after checking them with it.
 */

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** One request to /api/v1 with the caller's key; `path` is relative to /api/v1. */
export type ApiCall = (method: "GET" | "POST" | "DELETE", path: string, body?: unknown) => Promise<ApiAnswer>;

export const MCP_TOOL_NAMES = ["send-email", "get-events", "get-message", "list-webhooks", "create-webhook", "delete-webhook", "list-suppressions"] as const;

const paging = {
  StartFrom: z.number().int().min(0).optional().describe("Offset, default 0"),
  RetrieveCount: z.number().int().min(1).max(MAX_RETRIEVE_COUNT).optional().describe(`1–${MAX_RETRIEVE_COUNT}, default 5`),
};

const eventsInput = z.object({
  StartDate: z.number().int().min(0).optional().describe("Unix seconds, inclusive lower bound on LoggedAt"),
  EndDate: z.number().int().min(0).optional().describe("Unix seconds, inclusive upper bound on LoggedAt"),
  Event: z.enum([...EVENT_TYPES, ACCEPTED_ALIAS]).optional().describe("Only events of this type"),
  MessageID: z.string().max(200).optional().describe("Only events of this message"),
  ...paging,
});

const suppressionsInput = z.object({
  Reason: z.enum(SUPPRESSION_REASONS).optional(),
  Email: z.string().max(998).optional().describe("Only this address"),
  ...paging,
});

const messageInput = z.object({ MessageID: z.string().min(1).max(200).describe("The MessageID POST /email answered") });
const webhookIdInput = z.object({ WebhookID: z.union([z.number().int().min(1), z.string()]).describe("The WebhookID of GET /webhooks") });

/** The tool's answer: the API's JSON; a refusal (4xx/5xx) is an error result carrying the envelope. */
function resultOf(answer: ApiAnswer): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(answer.body, null, 2) }], ...(answer.status >= 400 && { isError: true }) };
}

/** A query object as the API receives it: present values as strings. */
function queryString(input: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(input).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
}

/** Checks the query with the contract's schema (as the API will), then calls GET. */
async function getWithQuery(call: ApiCall, path: string, schema: z.ZodType, input: Record<string, unknown>): Promise<CallToolResult> {
  const query = queryString(input);
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "")))];
    return { content: [{ type: "text", text: `Invalid parameters: ${fields.join(", ")}` }], isError: true };
  }
  const search = new URLSearchParams(query).toString();
  return resultOf(await call("GET", search ? `${path}?${search}` : path));
}

export function createMcpServer(call: ApiCall, version = "1.0.0"): McpServer {
  const server = new McpServer({ name: "mailroom", version });

  server.registerTool(
    "send-email",
    {
      description:
        "Send an email (POST /email). From must be on a verified sender domain of the account; To 1–10 recipients; ContentType HTML or Text with HTMLContent and/or PlainContent. Answers the MessageID.",
      inputSchema: emailRequestSchema,
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (input) => resultOf(await call("POST", "/email", input)),
  );

  server.registerTool(
    "get-events",
    { description: "Read the event log (GET /events), newest first, with TotalRecords.", inputSchema: eventsInput, annotations: { readOnlyHint: true } },
    (input) => getWithQuery(call, "/events", eventsQuerySchema, input),
  );

  server.registerTool(
    "get-message",
    {
      description: "One message: its headers and every event of it (GET /events with MessageID, up to 100 events).",
      inputSchema: messageInput,
      annotations: { readOnlyHint: true },
    },
    async ({ MessageID }) => {
      const answer = await call("GET", `/events?${new URLSearchParams({ MessageID, RetrieveCount: String(MAX_RETRIEVE_COUNT) })}`);
      if (answer.status >= 400) return resultOf(answer);
      const { Events = [], TotalRecords = 0 } = answer.body as { Events?: { Message?: { Headers?: unknown } }[]; TotalRecords?: number };
      if (TotalRecords === 0) return { content: [{ type: "text", text: `No message ${MessageID} in this account` }], isError: true };
      return resultOf({ status: answer.status, body: { MessageID, Headers: Events[0]?.Message?.Headers, TotalEvents: TotalRecords, Events } });
    },
  );

  server.registerTool(
    "list-webhooks",
    { description: "List the account's webhooks (GET /webhooks).", annotations: { readOnlyHint: true } },
    async () => resultOf(await call("GET", "/webhooks")),
  );

  server.registerTool(
    "create-webhook",
    {
      description: "Register a webhook (POST /webhooks): Event is bounce, click, open, unsubscribe, complaint or delivery; WebhookURL an http(s) URL.",
      inputSchema: createWebhookRequestSchema,
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    async (input) => resultOf(await call("POST", "/webhooks", input)),
  );

  server.registerTool(
    "delete-webhook",
    { description: "Delete a webhook (DELETE /webhooks/{id}).", inputSchema: webhookIdInput, annotations: { destructiveHint: true, idempotentHint: true } },
    async ({ WebhookID }) => {
      const id = webhookIdParamSchema.safeParse(String(WebhookID));
      if (!id.success) return { content: [{ type: "text", text: "Invalid parameters: WebhookID" }], isError: true };
      return resultOf(await call("DELETE", `/webhooks/${id.data}`));
    },
  );

  server.registerTool(
    "list-suppressions",
    {
      description: "List suppressed addresses (GET /suppressions), newest first; filter by Reason or one Email.",
      inputSchema: suppressionsInput,
      annotations: { readOnlyHint: true },
    },
    (input) => getWithQuery(call, "/suppressions", suppressionsQuerySchema, input),
  );

  return server;
}

/** An ApiCall over HTTP to a Mailroom server (`mailroom mcp`); `baseUrl` is its origin. */
export function httpApiCall(baseUrl: string, apiKey: string, fetchImpl: typeof fetch = fetch): ApiCall {
  const origin = baseUrl.replace(/\/+$/, "");
  return async (method, path, body) => {
    const res = await fetchImpl(`${origin}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's error page): handed over as text.
    }
    return { status: res.status, body: parsed };
  };
}
