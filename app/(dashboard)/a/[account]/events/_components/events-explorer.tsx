"use client";

import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { Card } from "@/components/ui/card";
import { Drawer } from "@/components/ui/drawer";
import type { EventRecord } from "@/lib/contract/events";
import { useAccountBase } from "@/components/shell/use-account";
import type { EventsResult } from "../actions";
import { emptyReason, eventsHref } from "../_lib/explorer-view";
import { parseEventFilters, toSearch, type EventFilters } from "../_lib/filters";
import { EventDetail } from "./event-detail";
import { EventFilterForm } from "./event-filter-form";
import { EventsPager } from "./events-pager";
import { EventsResults } from "./events-results";
import { EventsToolbar } from "./events-toolbar";
import { useEventsPage } from "./use-events-page";

/**
 * The event log of the account: the view is the URL (filters, page), read
 * into filters, fetched a page at a time, and shown as filter form, summary,
 * results, pager and a drawer with the selected event. What is derived from
 * the filters and the page is in ../_lib/explorer-view.ts.
 */
export function EventsExplorer({
  initial,
  initialSearch,
  canOpenMessages,
}: {
  initial: EventsResult;
  initialSearch: string;
  canOpenMessages: boolean;
}) {
  const filters = parseEventFilters(useSearchParams());
  const search = toSearch(filters);
  const [autoRefresh, setAutoRefresh] = useState(false);
  const [selected, setSelected] = useState<EventRecord | null>(null);
  const base = useAccountBase();
  const query = useEventsPage(search, initial, initialSearch, autoRefresh);

  // The URL is the state: pushState keeps Back working and makes the view a link.
  const navigate = (next: Partial<EventFilters>) => window.history.pushState(null, "", eventsHref(base, { ...filters, ...next }));
  const clear = () => window.history.pushState(null, "", eventsHref(base, {}));
  const data = query.data?.events;

  return (
    <div className="flex flex-col gap-4">
      <Card className="p-4">
        <EventFilterForm key={search} filters={filters} onApply={navigate} onClear={clear} />
      </Card>
      <EventsToolbar filters={filters} page={query.data} isPrevious={query.isPlaceholderData} isFetching={query.isFetching} autoRefresh={autoRefresh} onAutoRefresh={setAutoRefresh} />
      <EventsResults
        data={data}
        error={query.isError ? query.error : null}
        onRetry={() => void query.refetch()}
        isPending={query.isPending}
        isFetching={query.isFetching}
        isPrevious={query.isPlaceholderData}
        emptyReason={emptyReason(filters)}
        onClear={clear}
        onFirstPage={() => navigate({ offset: 0 })}
        onSelect={setSelected}
      />
      {data && data.TotalRecords > 0 && <EventsPager filters={filters} total={data.TotalRecords} onNavigate={navigate} />}
      <Drawer open={selected !== null} onClose={() => setSelected(null)} title={selected ? `${selected.Event} · ${selected.Recipient}` : ""}>
        {selected && <EventDetail event={selected} canOpenMessage={canOpenMessages} />}
      </Drawer>
    </div>
  );
}
