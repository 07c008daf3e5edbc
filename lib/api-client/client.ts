import type { z } from "zod";
import type { ApiErrorItem } from "../contract/errors";
import { emailResponseSchema, type EmailRequest, type EmailResponse } from "../contract/email";
import { eventsResponseSchema, type EventsResponse, type EventType } from "../contract/events";
import {
  batchResponseSchema,
  messageScheduleSchema,
  scheduledListSchema,
  type BatchItemResult,
  type MessageSchedule,
  type ScheduledList,
} from "../contract/scheduled";
import {
  createInboundRouteResponseSchema,
  inboundEmptyResponseSchema,
  inboundMessageDetailSchema,
  listInboundMessagesResponseSchema,
  listInboundRoutesResponseSchema,
  type CreateInboundRouteRequest,
  type InboundMessageDetail,
  type InboundStatusName,
  type ListInboundMessagesResponse,
  type ListInboundRoutesResponse,
} from "../contract/inbound";
import { dmarcResponseSchema, type DmarcResponse } from "../contract/dmarc";
import { listDomainsResponseSchema, type ListDomainsResponse } from "../contract/domains";
import { reputationResponseSchema, type ReputationResponse } from "../contract/reputation";
import { statsResponseSchema, type StatsBreakdownBy, type StatsInterval, type StatsResponse } from "../contract/stats";
import {
  archiveTemplateResponseSchema,
  listTemplatesResponseSchema,
  renderTemplateResponseSchema,
  templateDetailSchema,
  templateSavedResponseSchema,
  templateVersionSchema,
  type ListTemplatesResponse,
  type RenderDraftRequest,
  type RenderTemplateResponse,
  type TemplateDetail,
  type TemplateEmailRequest,
  type TemplateRequest,
  type TemplateSavedResponse,
  type TemplateVersion,
} from "../contract/templates";
import {
  createWebhookResponseSchema,
  deleteWebhookResponseSchema,
  listWebhooksResponseSchema,
  type CreateWebhookRequest,
  type CreateWebhookResponse,
  type ListWebhooksResponse,
} from "../contract/webhooks";
import {
  deliveriesResponseSchema,
  deliveryDetailSchema,
  queuedResponseSchema,
  type DeliveriesResponse,
  type DeliveryDetail,
  type DeliveryStatus,
  type QueuedResponse,
  type ReplayRequest,
} from "../contract/webhook-deliveries";
import { errorItemsOf, parseJson, queryString, requestInit, requestSignal, retryAfterMs, segment, templateId, webhookPath, type CallInit } from "./request";

/**
 * A typed client of the public API (docs/contract.md, extensions of §12 included). Every
 * response is parsed with the zod schema of lib/contract, so the dashboard
 * cannot drift from the API. Framework-free: lib/api-client/index.ts wraps it
 * for Next's server side; tests and benches use it directly.
 */

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per request; default 15 s. */
  timeoutMs?: number;
  /** How many times a 429 is retried after its Retry-After (capped at 5 s); default 5. */
  retriesOn429?: number;
}

/** The API answered with its error envelope (or an unexpected status). */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiErrorItem[],
    readonly path: string,
  ) {
    super(`${path}: HTTP ${status}${errors[0] ? ` (code ${errors[0].Code}: ${errors[0].Message})` : ""}`);
    this.name = "ApiRequestError";
  }
}

/** The API answered 2xx with a body that does not match the contract, or did not answer at all. */
export class ApiUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ApiUnavailableError";
  }
}

export interface EventsParams {
  StartDate?: number;
  EndDate?: number;
  Event?: EventType;
  StartFrom?: number;
  RetrieveCount?: number;
  MessageID?: string;
  /** Extensions (docs/contract.md §7.6): one recipient's events; a fragment of the Subject. */
  Recipient?: string;
  Subject?: string;
}

export interface StatsParams {
  StartDate: number;
  EndDate: number;
  Interval: StatsInterval;
  /** Extension (docs/adr/0517): adds the range's Breakdown by this dimension. */
  By?: StatsBreakdownBy;
}

/** GET /webhooks/{id}/deliveries (docs/contract.md §16.1). */
export interface DeliveriesParams {
  Status?: DeliveryStatus;
  StartDate?: number;
  EndDate?: number;
  StartFrom?: number;
  RetrieveCount?: number;
}

/** GET /inbound/messages (docs/contract.md §13.5). */
export interface InboundMessagesParams {
  StartDate?: number;
  EndDate?: number;
  Recipient?: string;
  Status?: InboundStatusName;
  StartFrom?: number;
  RetrieveCount?: number;
}

export interface ApiClient {
  readonly baseUrl: string;
  listEvents(params?: EventsParams, init?: { signal?: AbortSignal }): Promise<EventsResponse>;
  /** GET /stats; undefined when the server has no stats endpoint (404). */
  getStats(params: StatsParams): Promise<StatsResponse | undefined>;
  /** POST /email, with its own content or with a template (docs/contract.md §14.3). */
  sendEmail(request: EmailRequest | TemplateEmailRequest): Promise<EmailResponse>;
  listWebhooks(): Promise<ListWebhooksResponse>;
  createWebhook(request: CreateWebhookRequest): Promise<CreateWebhookResponse>;
  deleteWebhook(id: number | string): Promise<void>;
  /** Webhook deliveries (docs/contract.md §16). */
  listWebhookDeliveries(webhookId: number | string, params?: DeliveriesParams): Promise<DeliveriesResponse>;
  getWebhookDelivery(webhookId: number | string, deliveryId: string): Promise<DeliveryDetail>;
  retryWebhookDelivery(webhookId: number | string, deliveryId: string): Promise<QueuedResponse>;
  replayWebhookDeliveries(webhookId: number | string, request: Partial<ReplayRequest>): Promise<QueuedResponse>;
  enableWebhook(webhookId: number | string): Promise<QueuedResponse>;
  // Templates (docs/contract.md §14); a read of an unknown, archived or another account's template is undefined.
  listTemplates(): Promise<ListTemplatesResponse>;
  getTemplate(id: number): Promise<TemplateDetail | undefined>;
  getTemplateVersion(id: number, version: number): Promise<TemplateVersion | undefined>;
  createTemplate(request: TemplateRequest): Promise<TemplateSavedResponse>;
  updateTemplate(id: number, request: TemplateRequest): Promise<TemplateSavedResponse>;
  archiveTemplate(id: number): Promise<void>;
  renderTemplate(id: number, model: Record<string, unknown>, version?: number): Promise<RenderTemplateResponse>;
  /** POST /templates/render (§14.4): unsaved content rendered with a model; nothing is stored. */
  renderTemplateDraft(draft: RenderDraftRequest): Promise<RenderTemplateResponse>;
  /** POST /email/batch (docs/contract.md §15.4): one result per item, in order. */
  sendBatch(requests: EmailRequest[]): Promise<BatchItemResult[]>;
  /** GET /email/{MessageID} (§15.2). */
  getEmailSchedule(messageId: string): Promise<MessageSchedule>;
  /** GET /email/scheduled (§15.2): the account's scheduled messages, soonest first. */
  listScheduledEmails(): Promise<ScheduledList>;
  /** PATCH /email/{MessageID} (§15.3); `sendAt` as SendAt takes it. */
  rescheduleEmail(messageId: string, sendAt: number | string): Promise<MessageSchedule>;
  /** POST /email/{MessageID}/cancel (§15.3). */
  cancelEmail(messageId: string): Promise<MessageSchedule>;
  // Inbound routes and received messages (docs/contract.md §13); an unknown or another account's message is undefined.
  listInboundRoutes(): Promise<ListInboundRoutesResponse>;
  createInboundRoute(request: CreateInboundRouteRequest): Promise<{ RouteID: number }>;
  deleteInboundRoute(id: number): Promise<void>;
  listInboundMessages(params?: InboundMessagesParams): Promise<ListInboundMessagesResponse>;
  getInboundMessage(messageId: string): Promise<InboundMessageDetail | undefined>;
  retryInboundMessage(messageId: string): Promise<void>;
  // Deliverability (docs/contract.md §17): read-only, for the Deliverability page.
  /** GET /domains: the account's sender domains with their records and last health checks. */
  listDomains(): Promise<ListDomainsResponse>;
  /** GET /reputation: rates, thresholds and the pause; undefined when the server has no such endpoint (404). */
  getReputation(): Promise<ReputationResponse | undefined>;
  /** GET /domains/{domain}/dmarc: the DMARC report sources of the last `days` days; undefined on 404 (no endpoint or no such domain). */
  getDmarcSources(domain: string, days: number): Promise<DmarcResponse | undefined>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request of the API, its body checked against `schema`; undefined only for a 404 the caller allowed. */
type Call = <S extends z.ZodType>(method: string, path: string, schema: S, init?: CallInit) => Promise<z.infer<S> | undefined>;
/** A request whose answer is never undefined (no allow404). */
type CallFor = <S extends z.ZodType>(method: string, path: string, schema: S, init?: Omit<CallInit, "allow404">) => Promise<z.infer<S>>;

export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const call = createCall({ ...options, baseUrl });
  const answer: CallFor = async (method, path, schema, init) => (await call(method, path, schema, init))!;
  return {
    baseUrl,
    ...eventEndpoints(call, answer),
    ...webhookEndpoints(answer),
    ...templateEndpoints(call, answer),
    ...sendingEndpoints(answer),
    ...inboundEndpoints(call, answer),
    ...deliverabilityEndpoints(call, answer),
  };
}

/**
 * A request in steps: sent (no answer is ApiUnavailableError), its body
 * read; a 2xx body that matches the contract is the result, a 429 is tried
 * again after its Retry-After, an allowed 404 is undefined, anything else is
 * ApiRequestError.
 */
function createCall(options: ApiClientOptions): Call {
  const { baseUrl, apiKey } = options;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const retries = options.retriesOn429 ?? 5;
  const send = async (method: string, path: string, init: CallInit): Promise<Response> => {
    try {
      return await doFetch(`${baseUrl}/api/v1${path}`, requestInit(method, apiKey, init.body, requestSignal(init.signal, timeoutMs)));
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new ApiUnavailableError(`The API at ${baseUrl} did not answer (${(err as Error).message})`, { cause: err });
    }
  };
  return async (method, path, schema, init = {}) => {
    for (let attempt = 0; ; attempt++) {
      const res = await send(method, path, init);
      const json = parseJson(await res.text());
      if (res.ok) return contractBody(schema, json, path);
      if (res.status === 429 && attempt < retries) {
        await sleep(retryAfterMs(res.headers.get("Retry-After")));
        continue;
      }
      if (res.status === 404 && init.allow404) return undefined;
      throw new ApiRequestError(res.status, errorItemsOf(json), path);
    }
  };
}

/** A 2xx body as the contract's schema parses it; one that does not match is the API's fault, not the caller's. */
function contractBody<S extends z.ZodType>(schema: S, json: unknown, path: string): z.infer<S> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiUnavailableError(`The API answered ${path} with a body that does not match the contract`, { cause: parsed.error });
  return parsed.data;
}

function eventEndpoints(call: Call, answer: CallFor): Pick<ApiClient, "listEvents" | "getStats"> {
  return {
    listEvents: async (params = {}, init = {}) => answer("GET", `/events${queryString(params)}`, eventsResponseSchema, init),
    getStats: async (params) => call("GET", `/stats${queryString(params)}`, statsResponseSchema, { allow404: true }),
  };
}

type WebhookEndpoints = "listWebhooks" | "createWebhook" | "deleteWebhook" | "listWebhookDeliveries" | "getWebhookDelivery" | "retryWebhookDelivery" | "replayWebhookDeliveries" | "enableWebhook";

function webhookEndpoints(answer: CallFor): Pick<ApiClient, WebhookEndpoints> {
  return {
    listWebhooks: async () => answer("GET", "/webhooks", listWebhooksResponseSchema),
    createWebhook: async (request) => answer("POST", "/webhooks", createWebhookResponseSchema, { body: request }),
    deleteWebhook: async (id) => void (await answer("DELETE", webhookPath(id), deleteWebhookResponseSchema)),
    listWebhookDeliveries: async (webhookId, params = {}) => answer("GET", `${webhookPath(webhookId)}/deliveries${queryString(params)}`, deliveriesResponseSchema),
    getWebhookDelivery: async (webhookId, deliveryId) => answer("GET", `${webhookPath(webhookId)}/deliveries/${segment(deliveryId)}`, deliveryDetailSchema),
    retryWebhookDelivery: async (webhookId, deliveryId) => answer("POST", `${webhookPath(webhookId)}/deliveries/${segment(deliveryId)}/retry`, queuedResponseSchema),
    replayWebhookDeliveries: async (webhookId, request) => answer("POST", `${webhookPath(webhookId)}/replay`, queuedResponseSchema, { body: request }),
    enableWebhook: async (webhookId) => answer("POST", `${webhookPath(webhookId)}/enable`, queuedResponseSchema),
  };
}

type TemplateEndpoints = "listTemplates" | "getTemplate" | "getTemplateVersion" | "createTemplate" | "updateTemplate" | "archiveTemplate" | "renderTemplate" | "renderTemplateDraft";

function templateEndpoints(call: Call, answer: CallFor): Pick<ApiClient, TemplateEndpoints> {
  return {
    listTemplates: async () => answer("GET", "/templates", listTemplatesResponseSchema),
    getTemplate: async (id) => call("GET", `/templates/${templateId(id)}`, templateDetailSchema, { allow404: true }),
    getTemplateVersion: async (id, version) => call("GET", `/templates/${templateId(id)}/versions/${templateId(version)}`, templateVersionSchema, { allow404: true }),
    createTemplate: async (request) => answer("POST", "/templates", templateSavedResponseSchema, { body: request }),
    updateTemplate: async (id, request) => answer("PUT", `/templates/${templateId(id)}`, templateSavedResponseSchema, { body: request }),
    archiveTemplate: async (id) => void (await answer("DELETE", `/templates/${templateId(id)}`, archiveTemplateResponseSchema)),
    renderTemplateDraft: async (draft) => answer("POST", "/templates/render", renderTemplateResponseSchema, { body: draft }),
    renderTemplate: async (id, model, version) =>
      answer("POST", `/templates/${templateId(id)}/render`, renderTemplateResponseSchema, { body: { TemplateModel: model, ...(version !== undefined && { TemplateVersion: version }) } }),
  };
}

type SendingEndpoints = "sendEmail" | "sendBatch" | "getEmailSchedule" | "listScheduledEmails" | "rescheduleEmail" | "cancelEmail";

function sendingEndpoints(answer: CallFor): Pick<ApiClient, SendingEndpoints> {
  return {
    sendEmail: async (request) => answer("POST", "/email", emailResponseSchema, { body: request }),
    sendBatch: async (requests) => answer("POST", "/email/batch", batchResponseSchema, { body: requests }),
    getEmailSchedule: async (messageId) => answer("GET", `/email/${segment(messageId)}`, messageScheduleSchema),
    listScheduledEmails: async () => answer("GET", "/email/scheduled", scheduledListSchema),
    rescheduleEmail: async (messageId, sendAt) => answer("PATCH", `/email/${segment(messageId)}`, messageScheduleSchema, { body: { SendAt: sendAt } }),
    cancelEmail: async (messageId) => answer("POST", `/email/${segment(messageId)}/cancel`, messageScheduleSchema),
  };
}

type InboundEndpoints = "listInboundRoutes" | "createInboundRoute" | "deleteInboundRoute" | "listInboundMessages" | "getInboundMessage" | "retryInboundMessage";

function inboundEndpoints(call: Call, answer: CallFor): Pick<ApiClient, InboundEndpoints> {
  return {
    listInboundRoutes: async () => answer("GET", "/inbound/routes", listInboundRoutesResponseSchema),
    createInboundRoute: async (request) => answer("POST", "/inbound/routes", createInboundRouteResponseSchema, { body: request }),
    deleteInboundRoute: async (id) => void (await answer("DELETE", `/inbound/routes/${templateId(id)}`, inboundEmptyResponseSchema)),
    listInboundMessages: async (params = {}) => answer("GET", `/inbound/messages${queryString(params)}`, listInboundMessagesResponseSchema),
    getInboundMessage: async (messageId) => call("GET", `/inbound/messages/${segment(messageId)}`, inboundMessageDetailSchema, { allow404: true }),
    retryInboundMessage: async (messageId) => void (await answer("POST", `/inbound/messages/${segment(messageId)}/retry`, inboundEmptyResponseSchema)),
  };
}

type DeliverabilityEndpoints = "listDomains" | "getReputation" | "getDmarcSources";

function deliverabilityEndpoints(call: Call, answer: CallFor): Pick<ApiClient, DeliverabilityEndpoints> {
  return {
    listDomains: async () => answer("GET", "/domains", listDomainsResponseSchema),
    getReputation: async () => call("GET", "/reputation", reputationResponseSchema, { allow404: true }),
    getDmarcSources: async (domain, days) => call("GET", `/domains/${segment(domain)}/dmarc${queryString({ Days: days })}`, dmarcResponseSchema, { allow404: true }),
  };
}
