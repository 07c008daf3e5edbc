"use client";

import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/input";
import { EVENT_TYPES, MAX_RECIPIENT_FILTER_LENGTH, MIN_SUBJECT_FILTER_LENGTH } from "@/lib/contract/events";
import { dateTimeInputValue, filtersFromForm, hasFilters } from "../_lib/explorer-view";
import type { EventFilters } from "../_lib/filters";

/** The filters (UTC range, type, MessageID, recipient, subject), filled from the URL; Apply (or a type picked) navigates. */
export function EventFilterForm({ filters, onApply, onClear }: { filters: EventFilters; onApply: (next: Partial<EventFilters>) => void; onClear: () => void }) {
  return (
    <form
      aria-label="Event filters"
      className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_10rem_1.5fr]"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(filtersFromForm(new FormData(e.currentTarget)));
      }}
    >
      <Field id="filter-from" label="From (UTC)">
        <Input id="filter-from" name="from" type="datetime-local" defaultValue={dateTimeInputValue(filters.from, "from")} />
      </Field>
      <Field id="filter-to" label="To (UTC)">
        <Input id="filter-to" name="to" type="datetime-local" defaultValue={dateTimeInputValue(filters.to, "to")} />
      </Field>
      <Field id="filter-type" label="Event type">
        <Select id="filter-type" name="type" defaultValue={filters.type ?? ""} onChange={(e) => onApply(filtersFromForm(new FormData(e.currentTarget.form!)))}>
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
      <Field id="filter-recipient" label="Recipient address" hint="The exact address, any case">
        <Input
          id="filter-recipient"
          name="recipient"
          type="search"
          defaultValue={filters.recipient}
          placeholder="customer@example.com"
          maxLength={MAX_RECIPIENT_FILTER_LENGTH}
          spellCheck={false}
          autoComplete="off"
          className="font-mono"
        />
      </Field>
      <Field id="filter-subject" label="Subject contains" hint={`At least ${MIN_SUBJECT_FILTER_LENGTH} characters`}>
        <Input id="filter-subject" name="subject" type="search" defaultValue={filters.subject} placeholder="e.g. receipt" minLength={MIN_SUBJECT_FILTER_LENGTH} autoComplete="off" />
      </Field>
      <div className="flex items-end gap-2 lg:col-span-2">
        <Button type="submit">Apply</Button>
        {hasFilters(filters) && (
          <Button variant="ghost" onClick={onClear}>
            Clear
          </Button>
        )}
      </div>
    </form>
  );
}
