import type { Metadata } from "next";
import { describeApiError } from "@/lib/dashboard/public-api";
import { canAccess } from "@/lib/auth/roles";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import type { EventsResult } from "./actions";
import { EventsExplorer } from "./_components/events-explorer";
import { parseEventFilters, toApiParams, toSearch } from "./_lib/filters";

export const metadata: Metadata = { title: "Events" };

export default async function EventsPage({
  params: route,
  searchParams,
}: {
  params: Promise<{ account: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account } = await route;
  const params = await searchParams;
  const filters = parseEventFilters(params);
  const search = toSearch(filters);
  const access = await requireAccess(account, "events", { returnTo: `/a/${account}/events${search}` });
  let initial: EventsResult;
  try {
    initial = { ok: true, data: { events: await (await apiFor(access, "events")).listEvents(toApiParams(filters)), search, fetchedAt: Date.now() } };
  } catch (err) {
    initial = { ok: false, error: describeApiError(err) };
  }
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Events</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">Every event of the account, newest first. Filters are part of the address: share the link.</p>
      </div>
      <EventsExplorer initial={initial} initialSearch={search} canOpenMessages={canAccess(access.role, "messages")} />
    </div>
  );
}
