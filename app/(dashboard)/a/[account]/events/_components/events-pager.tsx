"use client";

import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import { pagerOf } from "../_lib/explorer-view";
import { PAGE_SIZES, type EventFilters } from "../_lib/filters";

/** Page size, newer and older pages, and "Page n of m". */
export function EventsPager({ filters, total, onNavigate }: { filters: EventFilters; total: number; onNavigate: (next: Partial<EventFilters>) => void }) {
  const pager = pagerOf(filters, total);
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3">
      <div className="flex items-center gap-2">
        <label htmlFor="page-size" className="whitespace-nowrap text-sm">
          Per page
        </label>
        <Select id="page-size" className="w-20" value={filters.size} onChange={(e) => onNavigate({ size: Number(e.target.value), offset: 0 })}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </Select>
      </div>
      <div className="flex items-center gap-2">
        <Button variant="secondary" size="sm" disabled={pager.isFirst} onClick={() => onNavigate({ offset: pager.newer })}>
          ← Newer
        </Button>
        <span className="text-sm text-slate-700 dark:text-slate-300">
          Page {pager.page} of {pager.pages.toLocaleString("en-US")}
        </span>
        <Button variant="secondary" size="sm" disabled={pager.isLast} onClick={() => onNavigate({ offset: pager.older })}>
          Older →
        </Button>
      </div>
    </nav>
  );
}
