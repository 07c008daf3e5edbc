"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { EventTypeBadge } from "@/components/events/event-type-badge";
import { formatUtc } from "@/components/format";
import { Alert, EmptyState, Spinner } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Drawer } from "@/components/ui/drawer";
import { Field, Input, Select } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { EVENT_TYPES, type EventRecord } from "@/lib/contract/events";
import { useAccountBase, useAccountId } from "@/components/shell/use-account";
import { listEventsAction, type EventsResult } from "../actions";
import { PAGE_SIZES, parseEventFilters, toSearch, type EventFilters } from "../_lib/filters";
import { EventDetail } from "./event-detail";
import { ExportButton } from "./export-button";

const REFRESH_MS = 10_000;

export function EventsExplorer({
  initial,
  initialSearch,
  canOpenMessages,
}: {
  initial: EventsResult;
  initialSearch: string;
  canOpenMessages: boolean;
}) {
  const searchParams = useSearchParams();
  const filters = parseEventFilters(searchParams);
  const search = toSearch(filters);
  const [autoRefresh, setAutoRefresh] = useState(false);
  const [selected, setSelected] = useState<EventRecord | null>(null);

  const accountId = useAccountId();
  const base = useAccountBase();
  const query = useQuery({
    queryKey: ["events", accountId, search],
    queryFn: async () => {
      const result = await listEventsAction(accountId, search);
      if (!result.ok) throw new Error(result.error);
      return result.data;
    },
    initialData: search === initialSearch && initial.ok ? initial.data : undefined,
    placeholderData: keepPreviousData,
    refetchInterval: autoRefresh ? REFRESH_MS : false,
  });

  // The URL is the state: pushState keeps Back working and makes the view a link.
  const navigate = (next: Partial<EventFilters>) => {
    window.history.pushState(null, "", `${base}/events${toSearch({ ...filters, ...next })}`);
  };

  const applyForm = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const val = (k: string) => String(data.get(k) ?? "").trim() || undefined;
    navigate({ from: val("from"), to: val("to"), type: val("type") as EventFilters["type"], messageId: val("messageId"), offset: 0 });
  };

  const hasFilters = Boolean(filters.from || filters.to || filters.type || filters.messageId);
  // While another page loads, the previous rows stay (dimmed) and the summary describes them.
  const data = query.data?.events;
  const shownOffset = query.isPlaceholderData ? parseEventFilters(new URLSearchParams(query.data?.search ?? "")).offset : filters.offset;
  const total = data?.TotalRecords ?? 0;
  const first = total === 0 ? 0 : shownOffset + 1;
  const last = Math.min(shownOffset + (data?.Events.length ?? 0), total);
  const exportSearch = toSearch({ ...filters, offset: 0, size: undefined });

  return (
    <div className="flex flex-col gap-4">
      <Card className="p-4">
        <form
          key={search}
          aria-label="Event filters"
          className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_10rem_1.5fr_auto]"
          onSubmit={(e) => {
            e.preventDefault();
            applyForm(e.currentTarget);
          }}
        >
          <Field id="filter-from" label="From (UTC)">
            <Input id="filter-from" name="from" type="datetime-local" defaultValue={filters.from?.length === 10 ? `${filters.from}T00:00` : filters.from} />
          </Field>
          <Field id="filter-to" label="To (UTC)">
            <Input id="filter-to" name="to" type="datetime-local" defaultValue={filters.to?.length === 10 ? `${filters.to}T23:59` : filters.to} />
          </Field>
          <Field id="filter-type" label="Event type">
            <Select
              id="filter-type"
              name="type"
              defaultValue={filters.type ?? ""}
              onChange={(e) => applyForm(e.currentTarget.form!)}
            >
              <option value="">All types</option>
              {EVENT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="filter-message" label="MessageID">
            <Input id="filter-message" name="messageId" defaultValue={filters.messageId} placeholder="e.g. 3f1c…" spellCheck={false} className="font-mono" />
          </Field>
          <div className="flex items-end gap-2">
            <Button type="submit">Apply</Button>
            {hasFilters && (
              <Button variant="ghost" onClick={() => window.history.pushState(null, "", `${base}/events`)}>
                Clear
              </Button>
            )}
          </div>
        </form>
      </Card>

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
          {query.isFetching && data && <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">Updating…</span>}
        </p>
        <div className="flex flex-wrap items-center gap-3">
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={autoRefresh} onChange={(e) => setAutoRefresh(e.target.checked)} className="size-4 accent-brand-600" />
            Auto-refresh (10 s)
          </label>
          <ExportButton search={exportSearch} />
        </div>
      </div>

      <Card data-testid="events-results" aria-busy={query.isFetching || query.isPlaceholderData}>
        {query.isError && (
          <div className="p-4">
            <Alert tone="error" title="The events could not be loaded">
              <p>{query.error.message}</p>
              <Button className="mt-2" size="sm" variant="secondary" onClick={() => void query.refetch()}>
                Try again
              </Button>
            </Alert>
          </div>
        )}
        {!data && query.isPending && (
          <div className="p-8">
            <Spinner label="Loading events…" />
          </div>
        )}
        {data && data.Events.length === 0 && (
          hasFilters ? (
            <EmptyState title="No events match these filters">
              <p>Widen the date range, pick another type or check the MessageID.</p>
              <Button className="mt-3" variant="secondary" size="sm" onClick={() => window.history.pushState(null, "", `${base}/events`)}>
                Clear the filters
              </Button>
            </EmptyState>
          ) : filters.offset > 0 ? (
            <EmptyState title="This page is past the last event">
              <Button variant="secondary" size="sm" onClick={() => navigate({ offset: 0 })}>
                Go to the first page
              </Button>
            </EmptyState>
          ) : (
            <EmptyState title="No events yet">
              <p>
                Send a message through the API (<code>POST /api/v1/email</code>) and its events appear here within seconds.
              </p>
            </EmptyState>
          )
        )}
        {data && data.Events.length > 0 && (
          <Table aria-label="Events" data-testid="events-table">
            <thead>
              <tr>
                <Th>Time (UTC)</Th>
                <Th>Type</Th>
                <Th>Recipient</Th>
                <Th className="hidden md:table-cell">Subject</Th>
                <Th className="hidden lg:table-cell">Reason</Th>
              </tr>
            </thead>
            <tbody>
              {data.Events.map((ev) => (
                <tr
                  key={ev.EventID}
                  className={`cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-800/60 ${query.isPlaceholderData ? "opacity-60" : ""}`}
                  onClick={() => setSelected(ev)}
                  data-testid="event-row"
                >
                  <Td className="whitespace-nowrap">
                    <button
                      type="button"
                      className="text-left font-mono text-xs text-brand-700 underline-offset-2 hover:underline dark:text-brand-100"
                      onClick={(e) => {
                        e.stopPropagation();
                        setSelected(ev);
                      }}
                      aria-label={`Details of the ${ev.Event} event at ${formatUtc(ev.LoggedAt)}`}
                    >
                      {formatUtc(ev.LoggedAt)}
                    </button>
                  </Td>
                  <Td>
                    <EventTypeBadge type={ev.Event} />
                  </Td>
                  <Td className="max-w-56 truncate">{ev.Recipient}</Td>
                  <Td className="hidden max-w-64 truncate md:table-cell">{ev.Message.Headers.Subject}</Td>
                  <Td className="hidden max-w-72 truncate text-slate-600 lg:table-cell dark:text-slate-400">{ev.Reason}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>

      {data && total > 0 && (
        <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3">
          <div className="flex items-center gap-2">
            <label htmlFor="page-size" className="whitespace-nowrap text-sm">
              Per page
            </label>
            <Select
              id="page-size"
              className="w-20"
              value={filters.size}
              onChange={(e) => navigate({ size: Number(e.target.value), offset: 0 })}
            >
              {PAGE_SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </Select>
          </div>
          <div className="flex items-center gap-2">
            <Button
              variant="secondary"
              size="sm"
              disabled={filters.offset === 0}
              onClick={() => navigate({ offset: Math.max(0, filters.offset - filters.size) })}
            >
              ← Newer
            </Button>
            <span className="text-sm text-slate-700 dark:text-slate-300">
              Page {Math.floor(filters.offset / filters.size) + 1} of {Math.max(1, Math.ceil(total / filters.size)).toLocaleString("en-US")}
            </span>
            <Button
              variant="secondary"
              size="sm"
              disabled={filters.offset + filters.size >= total}
              onClick={() => navigate({ offset: filters.offset + filters.size })}
            >
              Older →
            </Button>
          </div>
        </nav>
      )}

      <Drawer open={selected !== null} onClose={() => setSelected(null)} title={selected ? `${selected.Event} · ${selected.Recipient}` : ""}>
        {selected && <EventDetail event={selected} canOpenMessage={canOpenMessages} />}
      </Drawer>
    </div>
  );
}
