import { describe, expect, it } from "vitest";
import type { EventsPage } from "../actions";
import { dateTimeInputValue, emptyReason, eventsHref, exportSearch, filtersFromForm, hasFilters, pagerOf, shownRange } from "./explorer-view";
import type { EventFilters } from "./filters";

const none: EventFilters = { offset: 0, size: 25 };

function page(search: string, count: number, total: number): EventsPage {
  return { search, fetchedAt: 0, events: { TotalRecords: total, Events: Array.from({ length: count }) } as EventsPage["events"] };
}

describe("event explorer view", () => {
  it("counts a filter on dates, type or MessageID, not the paging", () => {
    expect(hasFilters({ ...none, offset: 50, size: 100 })).toBe(false);
    expect([{ from: "2026-11-01" }, { to: "2026-11-01" }, { type: "opened" as const }, { messageId: "m" }].map((f) => hasFilters({ ...none, ...f }))).toEqual([true, true, true, true]);
  });

  it("counts a recipient or a subject as a filter, and reads them from the form", () => {
    expect([{ recipient: "a@b.test" }, { subject: "receipt" }].map((f) => hasFilters({ ...none, ...f }))).toEqual([true, true]);
    const form = new FormData();
    form.set("recipient", " Carol@Example.NET ");
    form.set("subject", " receipt ");
    expect(filtersFromForm(form)).toMatchObject({ recipient: "Carol@Example.NET", subject: "receipt", offset: 0 });
    expect(eventsHref("/a/acme", { recipient: "carol@example.net" })).toBe("/a/acme/events?recipient=carol%40example.net");
  });

  it("links to a view with its filters in the query string", () => {
    expect(eventsHref("/a/acme", { ...none, type: "failed", offset: 25 })).toBe("/a/acme/events?type=failed&offset=25");
    expect(eventsHref("/a/acme", {})).toBe("/a/acme/events");
  });

  it("reads the filter form, trimmed, blanks dropped, back to the first page", () => {
    const form = new FormData();
    form.set("from", " 2026-11-01T10:00 ");
    form.set("to", "");
    form.set("type", "opened");
    form.set("messageId", "  ");
    expect(filtersFromForm(form)).toEqual({ from: "2026-11-01T10:00", to: undefined, type: "opened", messageId: undefined, offset: 0 });
  });

  it("shows a whole-day bound as the day's first or last minute", () => {
    expect(dateTimeInputValue("2026-11-01", "from")).toBe("2026-11-01T00:00");
    expect(dateTimeInputValue("2026-11-01", "to")).toBe("2026-11-01T23:59");
    expect(dateTimeInputValue("2026-11-01T10:05", "to")).toBe("2026-11-01T10:05");
    expect(dateTimeInputValue(undefined, "from")).toBeUndefined();
  });

  it("exports the filtered range from its start, at any page size", () => {
    expect(exportSearch({ type: "failed", offset: 50, size: 100 })).toBe("?type=failed");
  });

  it("describes the rows on screen, the previous page's while the next loads", () => {
    expect(shownRange({ ...none, offset: 25 }, page("?offset=25", 25, 60), false)).toEqual({ first: 26, last: 50, total: 60 });
    expect(shownRange({ ...none, offset: 50 }, page("?offset=25", 25, 60), true)).toEqual({ first: 26, last: 50, total: 60 });
    expect(shownRange({ ...none, offset: 50 }, page("?offset=50", 10, 60), false)).toEqual({ first: 51, last: 60, total: 60 });
    expect(shownRange(none, page("", 0, 0), false)).toEqual({ first: 0, last: 0, total: 0 });
    expect(shownRange(none, undefined, false)).toEqual({ first: 0, last: 0, total: 0 });
  });

  it("tells which empty state applies", () => {
    expect(emptyReason({ ...none, type: "opened", offset: 25 })).toBe("filtered");
    expect(emptyReason({ ...none, offset: 25 })).toBe("past-end");
    expect(emptyReason(none)).toBe("none");
  });

  it("pages newer and older within the total", () => {
    expect(pagerOf(none, 60)).toEqual({ page: 1, pages: 3, newer: 0, older: 25, isFirst: true, isLast: false });
    expect(pagerOf({ ...none, offset: 25 }, 60)).toEqual({ page: 2, pages: 3, newer: 0, older: 50, isFirst: false, isLast: false });
    expect(pagerOf({ ...none, offset: 50 }, 60)).toEqual({ page: 3, pages: 3, newer: 25, older: 75, isFirst: false, isLast: true });
    expect(pagerOf({ ...none, offset: 10 }, 60)).toEqual({ page: 1, pages: 3, newer: 0, older: 35, isFirst: false, isLast: false });
    expect(pagerOf(none, 0).pages).toBe(1);
  });
});
