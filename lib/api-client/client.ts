import type { z } from "zod";
import { errorEnvelopeSchema, type ApiErrorItem } from "../contract/errors";
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
import { statsResponseSchema, type StatsInterval, type StatsResponse } from "../contract/stats";
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
}

export interface StatsParams {
  StartDate: number;
  EndDate: number;
  Interval: StatsInterval;
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
}

function queryString(params: object): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : "";
}

const hook = (id: number | string) => `/webhooks/${encodeURIComponent(String(id))}`;
/** An id or version number as a path segment: a positive integer, else a programming error. */
function templateId(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`not a template id or version: ${n}`);
  return String(n);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const retries = options.retriesOn429 ?? 5;

  async function call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    init: { body?: unknown; signal?: AbortSignal; allow404?: boolean } = {},
  ): Promise<z.infer<S> | undefined> {
    for (let attempt = 0; ; attempt++) {
      const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      let res: Response;
      try {
        res = await doFetch(`${baseUrl}/api/v1${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${options.apiKey}`,
            Accept: "application/json",
            ...(init.body !== undefined && { "Content-Type": "application/json" }),
          },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal,
          cache: "no-store",
        });
      } catch (err) {
        if (init.signal?.aborted) throw err;
        throw new ApiUnavailableError(`The API at ${baseUrl} did not answer (${(err as Error).message})`, { cause: err });
      }
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      if (res.ok) {
        const parsed = schema.safeParse(json);
        if (!parsed.success) {
          throw new ApiUnavailableError(`The API answered ${path} with a body that does not match the contract`, { cause: parsed.error });
        }
        return parsed.data;
      }
      if (res.status === 429 && attempt < retries) {
        const wait = Math.min(5, Math.max(0.05, Number(res.headers.get("Retry-After")) || 1));
        await sleep(wait * 1000);
        continue;
      }
      if (res.status === 404 && init.allow404) return undefined;
      const envelope = errorEnvelopeSchema.safeParse(json);
      throw new ApiRequestError(res.status, envelope.success ? envelope.data.Errors : [], path);
    }
  }

  return {
    baseUrl,
    async listEvents(params = {}, init = {}) {
      return (await call("GET", `/events${queryString(params)}`, eventsResponseSchema, init))!;
    },
    async getStats(params) {
      return call("GET", `/stats${queryString(params)}`, statsResponseSchema, { allow404: true });
    },
    async sendEmail(request) {
      return (await call("POST", "/email", emailResponseSchema, { body: request }))!;
    },
    async listWebhooks() {
      return (await call("GET", "/webhooks", listWebhooksResponseSchema))!;
    },
    async createWebhook(request) {
      return (await call("POST", "/webhooks", createWebhookResponseSchema, { body: request }))!;
    },
    async deleteWebhook(id) {
      await call("DELETE", `/webhooks/${encodeURIComponent(String(id))}`, deleteWebhookResponseSchema);
    },
    async listWebhookDeliveries(webhookId, params = {}) {
      return (await call("GET", `${hook(webhookId)}/deliveries${queryString(params)}`, deliveriesResponseSchema))!;
    },
    async getWebhookDelivery(webhookId, deliveryId) {
      return (await call("GET", `${hook(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}`, deliveryDetailSchema))!;
    },
    async retryWebhookDelivery(webhookId, deliveryId) {
      return (await call("POST", `${hook(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/retry`, queuedResponseSchema))!;
    },
    async replayWebhookDeliveries(webhookId, request) {
      return (await call("POST", `${hook(webhookId)}/replay`, queuedResponseSchema, { body: request }))!;
    },
    async enableWebhook(webhookId) {
      return (await call("POST", `${hook(webhookId)}/enable`, queuedResponseSchema))!;
    },
    async listTemplates() {
      return (await call("GET", "/templates", listTemplatesResponseSchema))!;
    },
    async getTemplate(id) {
      return call("GET", `/templates/${templateId(id)}`, templateDetailSchema, { allow404: true });
    },
    async getTemplateVersion(id, version) {
      return call("GET", `/templates/${templateId(id)}/versions/${templateId(version)}`, templateVersionSchema, { allow404: true });
    },
    async createTemplate(request) {
      return (await call("POST", "/templates", templateSavedResponseSchema, { body: request }))!;
    },
    async updateTemplate(id, request) {
      return (await call("PUT", `/templates/${templateId(id)}`, templateSavedResponseSchema, { body: request }))!;
    },
    async archiveTemplate(id) {
      await call("DELETE", `/templates/${templateId(id)}`, archiveTemplateResponseSchema);
    },
    async renderTemplateDraft(draft) {
      return (await call("POST", "/templates/render", renderTemplateResponseSchema, { body: draft }))!;
    },
    async renderTemplate(id, model, version) {
      return (await call("POST", `/templates/${templateId(id)}/render`, renderTemplateResponseSchema, { body: { TemplateModel: model, ...(version !== undefined && { TemplateVersion: version }) } }))!;
    },
    async sendBatch(requests) {
      return (await call("POST", "/email/batch", batchResponseSchema, { body: requests }))!;
    },
    async getEmailSchedule(messageId) {
      return (await call("GET", `/email/${encodeURIComponent(messageId)}`, messageScheduleSchema))!;
    },
    async listScheduledEmails() {
      return (await call("GET", "/email/scheduled", scheduledListSchema))!;
    },
    async rescheduleEmail(messageId, sendAt) {
      return (await call("PATCH", `/email/${encodeURIComponent(messageId)}`, messageScheduleSchema, { body: { SendAt: sendAt } }))!;
    },
    async cancelEmail(messageId) {
      return (await call("POST", `/email/${encodeURIComponent(messageId)}/cancel`, messageScheduleSchema))!;
    },
    async listInboundRoutes() {
      return (await call("GET", "/inbound/routes", listInboundRoutesResponseSchema))!;
    },
    async createInboundRoute(request) {
      return (await call("POST", "/inbound/routes", createInboundRouteResponseSchema, { body: request }))!;
    },
    async deleteInboundRoute(id) {
      await call("DELETE", `/inbound/routes/${templateId(id)}`, inboundEmptyResponseSchema);
    },
    async listInboundMessages(params = {}) {
      return (await call("GET", `/inbound/messages${queryString(params)}`, listInboundMessagesResponseSchema))!;
    },
    async getInboundMessage(messageId) {
      return call("GET", `/inbound/messages/${encodeURIComponent(messageId)}`, inboundMessageDetailSchema, { allow404: true });
    },
    async retryInboundMessage(messageId) {
      await call("POST", `/inbound/messages/${encodeURIComponent(messageId)}/retry`, inboundEmptyResponseSchema);
    },
  };
}
