"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useAccountId } from "@/components/shell/use-account";
import { listEventsAction, type EventsResult } from "../actions";

const REFRESH_MS = 10_000;

/**
 * The page of events of a view (its query string), through the server action:
 * the server-rendered page first, the previous page kept on screen while
 * another loads, refetched every 10 s when asked.
 */
export function useEventsPage(search: string, initial: EventsResult, initialSearch: string, autoRefresh: boolean) {
  const accountId = useAccountId();
  return useQuery({
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
}
