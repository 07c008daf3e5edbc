import { MAX_RETRIEVE_COUNT, type EventRecord } from "../contract/events";
import type { ApiClient, EventsParams } from "./client";

/**
 * Every event matching `params`, newest first, in pages of 100, without deep
 * offsets: after each page the upper bound moves down to the last record's
 * LoggedAt, and StartFrom skips only the records of that same second already
 * seen. Each request therefore costs the same however far the export has
 * gone, and events logged while it runs (newer than the fixed EndDate) do
 * not shift the pages.
 */
export async function* iterateEvents(
  client: ApiClient,
  params: Omit<EventsParams, "StartFrom" | "RetrieveCount">,
  options: { signal?: AbortSignal; onTotal?: (total: number) => void } = {},
): AsyncGenerator<EventRecord> {
  let end = params.EndDate ?? Math.floor(Date.now() / 1000);
  let skip = 0;
  let first = true;
  for (;;) {
    const page = await client.listEvents(
      { ...params, EndDate: end, StartFrom: skip, RetrieveCount: MAX_RETRIEVE_COUNT },
      { signal: options.signal },
    );
    if (first) options.onTotal?.(page.TotalRecords);
    first = false;
    for (const ev of page.Events) yield ev;
    if (page.Events.length < MAX_RETRIEVE_COUNT) return;
    const lastAt = page.Events[page.Events.length - 1]!.LoggedAt;
    const sameSecond = page.Events.filter((e) => e.LoggedAt === lastAt).length;
    skip = lastAt === end ? skip + sameSecond : sameSecond;
    end = lastAt;
  }
}
