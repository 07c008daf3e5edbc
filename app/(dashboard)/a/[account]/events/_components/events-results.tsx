"use client";

import { EventTypeBadge } from "@/components/events/event-type-badge";
import { formatUtc } from "@/components/format";
import { Alert, EmptyState, Spinner } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Table, Td, Th } from "@/components/ui/table";
import type { EventRecord, EventsResponse } from "@/lib/contract/events";
import type { EmptyReason } from "../_lib/explorer-view";

/** The results card: the load error, the first load, an empty page (and why), or the table of events. */
export function EventsResults({
  data,
  error,
  onRetry,
  isPending,
  isFetching,
  isPrevious,
  emptyReason,
  onClear,
  onFirstPage,
  onSelect,
}: {
  data: EventsResponse | undefined;
  error: Error | null;
  onRetry: () => void;
  isPending: boolean;
  isFetching: boolean;
  /** The rows are the previous view's, kept (dimmed) while this one loads. */
  isPrevious: boolean;
  emptyReason: EmptyReason;
  onClear: () => void;
  onFirstPage: () => void;
  onSelect: (event: EventRecord) => void;
}) {
  return (
    <Card data-testid="events-results" aria-busy={isFetching || isPrevious}>
      {error && (
        <div className="p-4">
          <Alert tone="error" title="The events could not be loaded">
            <p>{error.message}</p>
            <Button className="mt-2" size="sm" variant="secondary" onClick={onRetry}>
              Try again
            </Button>
          </Alert>
        </div>
      )}
      {!data && isPending && (
        <div className="p-8">
          <Spinner label="Loading events…" />
        </div>
      )}
      {data && data.Events.length === 0 && <NoEvents reason={emptyReason} onClear={onClear} onFirstPage={onFirstPage} />}
      {data && data.Events.length > 0 && <EventsTable events={data.Events} dimmed={isPrevious} onSelect={onSelect} />}
    </Card>
  );
}

function NoEvents({ reason, onClear, onFirstPage }: { reason: EmptyReason; onClear: () => void; onFirstPage: () => void }) {
  if (reason === "filtered") {
    return (
      <EmptyState title="No events match these filters">
        <p>Widen the date range, pick another type or check the MessageID.</p>
        <Button className="mt-3" variant="secondary" size="sm" onClick={onClear}>
          Clear the filters
        </Button>
      </EmptyState>
    );
  }
  if (reason === "past-end") {
    return (
      <EmptyState title="This page is past the last event">
        <Button variant="secondary" size="sm" onClick={onFirstPage}>
          Go to the first page
        </Button>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No events yet">
      <p>
        Send a message through the API (<code>POST /api/v1/email</code>) and its events appear here within seconds.
      </p>
    </EmptyState>
  );
}

/** One row per event; a click on the row (or its time, for the keyboard) opens its details. */
function EventsTable({ events, dimmed, onSelect }: { events: EventRecord[]; dimmed: boolean; onSelect: (event: EventRecord) => void }) {
  return (
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
        {events.map((ev) => (
          <tr
            key={ev.EventID}
            className={`cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-800/60 ${dimmed ? "opacity-60" : ""}`}
            onClick={() => onSelect(ev)}
            data-testid="event-row"
          >
            <Td className="whitespace-nowrap">
              <button
                type="button"
                className="text-left font-mono text-xs text-brand-700 underline-offset-2 hover:underline dark:text-brand-100"
                onClick={(e) => {
                  e.stopPropagation();
                  onSelect(ev);
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
  );
}
