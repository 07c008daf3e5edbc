import { z } from "zod";
import { EVENT_TYPES, MAX_RECIPIENT_FILTER_LENGTH, MAX_RETRIEVE_COUNT, MIN_SUBJECT_FILTER_LENGTH } from "@/lib/contract/events";
import { MAX_SUBJECT_LENGTH } from "@/lib/contract/email";
import type { EventsParams } from "@/lib/dashboard/public-api";

/**
 * The event explorer's filters as they live in the URL, so that a link
 * reproduces the view: `from`/`to` (UTC, `YYYY-MM-DDTHH:mm` or
 * `YYYY-MM-DD`), `type`, `messageId`, `recipient` and `subject` (GET /events'
 * extensions, docs/contract.md §7.6), `offset` (StartFrom), `size`.
 * Unknown or malformed values are dropped rather than failing the page.
 */

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;

export interface EventFilters {
  from?: string;
  to?: string;
  type?: (typeof EVENT_TYPES)[number];
  messageId?: string;
  recipient?: string;
  subject?: string;
  offset: number;
  size: number;
}

const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2})?$/;

const dateTime = z
  .string()
  .trim()
  .regex(DATE_TIME_RE)
  .refine((v) => Number.isFinite(Date.parse(v.length === 10 ? `${v}T00:00Z` : `${v}Z`)));

export const eventFiltersSchema = z.object({
  from: dateTime.optional().catch(undefined),
  to: dateTime.optional().catch(undefined),
  type: z.enum(EVENT_TYPES).optional().catch(undefined),
  messageId: z.string().trim().max(200).optional().catch(undefined).transform((v) => v || undefined),
  recipient: z.string().trim().max(MAX_RECIPIENT_FILTER_LENGTH).optional().catch(undefined).transform((v) => v || undefined),
  // Too short for the API (it would refuse it) or too long: dropped, as other malformed values are.
  subject: z
    .string()
    .trim()
    .refine((v) => [...v].length >= MIN_SUBJECT_FILTER_LENGTH && [...v].length <= MAX_SUBJECT_LENGTH)
    .optional()
    .catch(undefined),
  offset: z.coerce.number().int().min(0).max(10_000_000).catch(0),
  size: z.coerce
    .number()
    .int()
    .refine((n) => (PAGE_SIZES as readonly number[]).includes(n))
    .catch(DEFAULT_PAGE_SIZE),
});

type RawParams = Record<string, string | string[] | undefined> | URLSearchParams;

export function parseEventFilters(raw: RawParams): EventFilters {
  const get = (k: string) => {
    const v = raw instanceof URLSearchParams ? (raw.get(k) ?? undefined) : raw[k];
    return Array.isArray(v) ? v[0] : v;
  };
  return eventFiltersSchema.parse({
    from: get("from") || undefined,
    to: get("to") || undefined,
    type: get("type") || undefined,
    messageId: get("messageId") || undefined,
    recipient: get("recipient") || undefined,
    subject: get("subject") || undefined,
    offset: get("offset") ?? 0,
    size: get("size") ?? DEFAULT_PAGE_SIZE,
  });
}

/** Unix seconds of a filter bound; `to` is inclusive to the end of its minute (or day). */
export function boundSeconds(value: string, edge: "from" | "to"): number {
  const isDay = value.length === 10;
  const start = Date.parse(isDay ? `${value}T00:00:00Z` : `${value}:00Z`) / 1000;
  return edge === "from" ? start : start + (isDay ? 86_400 : 60) - 1;
}

export function toApiParams(f: EventFilters): EventsParams {
  // Bounds given the wrong way round are swapped (not refused).
  const [from, to] = f.from && f.to && boundSeconds(f.from, "from") > boundSeconds(f.to, "to") ? [f.to, f.from] : [f.from, f.to];
  const start = from ? boundSeconds(from, "from") : undefined;
  const end = to ? boundSeconds(to, "to") : undefined;
  return {
    StartDate: start,
    EndDate: end,
    Event: f.type,
    MessageID: f.messageId,
    Recipient: f.recipient,
    Subject: f.subject,
    StartFrom: f.offset,
    RetrieveCount: Math.min(f.size, MAX_RETRIEVE_COUNT),
  };
}

/** The query string of a view (defaults left out, so links stay short). */
export function toSearch(f: Partial<EventFilters>): string {
  const s = new URLSearchParams();
  if (f.from) s.set("from", f.from);
  if (f.to) s.set("to", f.to);
  if (f.type) s.set("type", f.type);
  if (f.messageId) s.set("messageId", f.messageId);
  if (f.recipient) s.set("recipient", f.recipient);
  if (f.subject) s.set("subject", f.subject);
  if (f.offset) s.set("offset", String(f.offset));
  if (f.size && f.size !== DEFAULT_PAGE_SIZE) s.set("size", String(f.size));
  const q = s.toString();
  return q ? `?${q}` : "";
}
