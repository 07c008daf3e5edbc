"use client";

import type { EventsPage } from "../actions";
import { exportSearch, shownRange } from "../_lib/explorer-view";
import type { EventFilters } from "../_lib/filters";
import { ExportButton } from "./export-button";

/** "Showing first–last of total events" (of the page on screen), the auto-refresh switch and the CSV export. */
export function EventsToolbar({
  filters,
  page,
  isPrevious,
  isFetching,
  autoRefresh,
  onAutoRefresh,
}: {
  filters: EventFilters;
  page: EventsPage | undefined;
  /** The page on screen is the previous view's, kept while this one loads. */
  isPrevious: boolean;
  isFetching: boolean;
  autoRefresh: boolean;
  onAutoRefresh: (on: boolean) => void;
}) {
  const { first, last, total } = shownRange(filters, page, isPrevious);
  const data = page?.events;
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm text-slate-700 dark:text-slate-300" aria-live="polite" data-testid="events-summary">
        {data ? (
          <>
            Showing <strong>{first.toLocaleString("en-US")}</strong>–<strong>{last.toLocaleString("en-US")}</strong> of{" "}
            <strong data-testid="events-total">{total.toLocaleString("en-US")}</strong> events
          </>
        ) : (
          "\u00a0"
        )}
        {isFetching && data && <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">Updating…</span>}
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={autoRefresh} onChange={(e) => onAutoRefresh(e.target.checked)} className="size-4 accent-brand-600" />
          Auto-refresh (10 s)
        </label>
        <ExportButton search={exportSearch(filters)} />
      </div>
    </div>
  );
}
