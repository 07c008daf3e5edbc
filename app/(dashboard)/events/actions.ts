"use server";

import { getApiClient } from "@/lib/api-client";
import { describeApiError } from "@/lib/api-client/describe-error";
import type { EventsResponse } from "@/lib/contract/events";
import { requireRole } from "@/lib/auth/require-role";
import { parseEventFilters, toApiParams, toSearch } from "./_lib/filters";

export type EventsResult = { ok: true; data: EventsResponse; search: string; fetchedAt: number } | { ok: false; error: string };

/** One page of the event log for the explorer (react-query calls this). */
export async function listEventsAction(search: string): Promise<EventsResult> {
  await requireRole("events");
  const filters = parseEventFilters(new URLSearchParams(search));
  try {
    const data = await (await getApiClient()).listEvents(toApiParams(filters));
    return { ok: true, data, search: toSearch(filters), fetchedAt: Date.now() };
  } catch (err) {
    return { ok: false, error: describeApiError(err) };
  }
}
