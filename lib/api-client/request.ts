import { errorEnvelopeSchema, type ApiErrorItem } from "../contract/errors";

/**
 * The steps of one request of the API client (client.ts), pure: its query
 * string and path segments, its signal and fetch options, its body read as
 * JSON, the wait a 429 asks for, and the error items of a refusal.
 */

export interface CallInit {
  body?: unknown;
  signal?: AbortSignal;
  /** A 404 answers undefined instead of throwing. */
  allow404?: boolean;
}

/** `?k=v&…` of the parameters set (undefined and "" left out), or "" when none is. */
export function queryString(params: object): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : "";
}

/** An id as a path segment, encoded. */
export const segment = (id: number | string): string => encodeURIComponent(String(id));

export const webhookPath = (id: number | string): string => `/webhooks/${segment(id)}`;

/** An id or version number as a path segment: a positive integer, else a programming error. */
export function templateId(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`not a template id or version: ${n}`);
  return String(n);
}

/** The request's own time limit, and the caller's signal when it gave one. */
export function requestSignal(callerSignal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  return callerSignal ? AbortSignal.any([callerSignal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
}

/** The fetch options: the key as a bearer token, JSON both ways, nothing cached. */
export function requestInit(method: string, apiKey: string, body: unknown, signal: AbortSignal): RequestInit {
  return {
    method,
    headers: {
      Authorization: `Bearer ${apiKey}`,
      Accept: "application/json",
      ...(body !== undefined && { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    cache: "no-store",
  };
}

/** The body as JSON; undefined when empty or not JSON. */
export function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** How long to wait before a 429 is tried again: its Retry-After (seconds), between 50 ms and 5 s, 1 s when absent. */
export function retryAfterMs(retryAfter: string | null): number {
  return Math.min(5, Math.max(0.05, Number(retryAfter) || 1)) * 1000;
}

/** The error items of the contract's envelope, or none when the body is not one. */
export function errorItemsOf(json: unknown): ApiErrorItem[] {
  const envelope = errorEnvelopeSchema.safeParse(json);
  return envelope.success ? envelope.data.Errors : [];
}
