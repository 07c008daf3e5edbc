"use server";

import { z } from "zod";
import type { EventsResponse } from "@/lib/contract/events";
import { staffAction, type ActionResult } from "@/lib/dashboard/action";
import { apiFor } from "@/lib/dashboard/api-for";
import { parseEventFilters, toApiParams, toSearch } from "./_lib/filters";

export type EventsPage = { events: EventsResponse; search: string; fetchedAt: number };
export type EventsResult = ActionResult<EventsPage>;

/** One page of the account's event log for the explorer (react-query calls this). */
export const listEventsAction = staffAction("events", z.string().max(4000), async (search, access): Promise<EventsPage> => {
  const filters = parseEventFilters(new URLSearchParams(search));
  const events = await (await apiFor(access, "events")).listEvents(toApiParams(filters));
  return { events, search: toSearch(filters), fetchedAt: Date.now() };
});
