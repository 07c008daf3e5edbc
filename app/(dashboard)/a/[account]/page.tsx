import type { Metadata } from "next";
import { describeApiError } from "@/lib/dashboard/public-api";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import type { OverviewResult } from "./actions";
import { OverviewDashboard } from "./_components/overview-dashboard";
import { RangePicker } from "./_components/range-picker";
import { loadOverview, type OverviewParams } from "./_lib/load-overview";
import { resolveRange } from "./_lib/overview";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage({
  params: route,
  searchParams,
}: {
  params: Promise<{ account: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account } = await route;
  const raw = await searchParams;
  const one = (k: string) => (typeof raw[k] === "string" ? (raw[k] as string) : undefined);
  const params: OverviewParams = { range: one("range"), from: one("from"), to: one("to"), source: one("source"), by: one("by") };
  // Support has no overview: it lands on its own home (the event log) instead of a 403.
  const access = await requireAccess(account, "overview", { returnTo: `/a/${account}`, onDenied: "home" });
  let initial: OverviewResult;
  try {
    initial = { ok: true, data: await loadOverview(await apiFor(access, "overview"), params) };
  } catch (err) {
    initial = { ok: false, error: describeApiError(err) };
  }
  const range = initial.ok ? initial.data.range : resolveRange(params, Date.now() / 1000);
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">Overview</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">Delivery, engagement and bounces of {access.account.accountName}.</p>
        </div>
        <RangePicker range={range} base={access.base} />
      </div>
      <OverviewDashboard key={JSON.stringify(params)} params={params} initial={initial} />
    </div>
  );
}
