import type { EventsPage } from "../actions";
import { parseEventFilters, toSearch, type EventFilters } from "./filters";

/**
 * What the event explorer derives from its filters and the page on screen:
 * the links it navigates to, the "Showing first–last of total" summary, the
 * pager's offsets, and which empty state applies. Pure: the explorer only
 * renders them.
 */

export function hasFilters(f: EventFilters): boolean {
  return Boolean(f.from || f.to || f.type || f.messageId || f.recipient || f.subject);
}

/** The explorer's address for a view (the URL is its state). */
export function eventsHref(base: string, f: Partial<EventFilters>): string {
  return `${base}/events${toSearch(f)}`;
}

/** The filter form's fields as filters; an Apply starts again at the first page. */
export function filtersFromForm(data: FormData): Partial<EventFilters> {
  const val = (k: string) => String(data.get(k) ?? "").trim() || undefined;
  return {
    from: val("from"),
    to: val("to"),
    type: val("type") as EventFilters["type"],
    messageId: val("messageId"),
    recipient: val("recipient"),
    subject: val("subject"),
    offset: 0,
  };
}

/** A bound for a datetime-local input: a whole day starts at 00:00 (`from`) or ends at 23:59 (`to`). */
export function dateTimeInputValue(value: string | undefined, edge: "from" | "to"): string | undefined {
  return value?.length === 10 ? `${value}T${edge === "from" ? "00:00" : "23:59"}` : value;
}

/** The export covers the whole filtered range, not one page. */
export function exportSearch(f: EventFilters): string {
  return toSearch({ ...f, offset: 0, size: undefined });
}

/**
 * The rows the summary describes (1-based, inclusive). While another page
 * loads, the previous page stays on screen, so its own offset counts.
 */
export function shownRange(f: EventFilters, page: EventsPage | undefined, isPrevious: boolean): { first: number; last: number; total: number } {
  const offset = isPrevious ? parseEventFilters(new URLSearchParams(page?.search ?? "")).offset : f.offset;
  const total = page?.events.TotalRecords ?? 0;
  return { first: total === 0 ? 0 : offset + 1, last: Math.min(offset + (page?.events.Events.length ?? 0), total), total };
}

export type EmptyReason = "filtered" | "past-end" | "none";

/** Why a page has no events: the filters match none, the offset is past the last one, or there are none yet. */
export function emptyReason(f: EventFilters): EmptyReason {
  return hasFilters(f) ? "filtered" : f.offset > 0 ? "past-end" : "none";
}

/** The pager: the page shown (1-based) of how many, and the offsets of its neighbours. */
export function pagerOf(f: EventFilters, total: number) {
  return {
    page: Math.floor(f.offset / f.size) + 1,
    pages: Math.max(1, Math.ceil(total / f.size)),
    newer: Math.max(0, f.offset - f.size),
    older: f.offset + f.size,
    isFirst: f.offset === 0,
    isLast: f.offset + f.size >= total,
  };
}
