"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { formatUtc } from "@/components/format";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { useAccountBase, useAccountId } from "@/components/shell/use-account";
import { getOverviewAction, type OverviewResult } from "../actions";
import type { OverviewParams } from "../_lib/load-overview";
import { computeKpis } from "../_lib/overview";
import { explorerHrefForBucket, overviewHrefWith, rangeHrefForBuckets } from "../_lib/overview-links";
import { BreakdownTable } from "./breakdown-table";
import { KpiCards } from "./kpi-cards";

const REFRESH_MS = 60_000;

const COUNT_SERIES = [
  { key: "delivered", label: "Delivered", color: "#059669", pair: { key: "deliveredRate", unit: "%" } },
  { key: "opened", label: "Opened", color: "#0284c7", pair: { key: "openedRate", unit: "%" } },
  { key: "bounced", label: "Bounced", color: "#dc2626", pair: { key: "bouncedRate", unit: "%" } },
];
const RATE_SERIES = [
  { key: "deliveredRate", label: "Delivery rate", color: "#059669", pair: { key: "delivered" } },
  { key: "openedRate", label: "Open rate", color: "#0284c7", pair: { key: "opened" } },
  { key: "bouncedRate", label: "Bounce rate", color: "#dc2626", pair: { key: "bounced" } },
];

export function OverviewDashboard({ params, initial }: { params: OverviewParams; initial: OverviewResult }) {
  const accountId = useAccountId();
  const base = useAccountBase();
  const router = useRouter();
  const query = useQuery({
    queryKey: ["overview", accountId, params],
    queryFn: async () => {
      const r = await getOverviewAction(accountId, params);
      if (!r.ok) throw new Error(r.error);
      return r;
    },
    initialData: initial.ok ? initial : undefined,
    refetchInterval: REFRESH_MS,
  });
  if (query.isError && !query.data) {
    return (
      <Alert tone="error" title="The overview could not be loaded">
        <p>{query.error.message}</p>
        <Button className="mt-2" size="sm" variant="secondary" onClick={() => void query.refetch()}>
          Try again
        </Button>
      </Alert>
    );
  }
  if (!query.data) {
    return <Alert title="Loading…" />;
  }
  const d = query.data.data;
  const kpis = computeKpis(d.totals, d.previousTotals);
  const interval = d.range.interval;
  const bucketHref = (start: number) => explorerHrefForBucket(base, start, interval);
  const selectRange = (first: number, last: number) => router.push(rangeHrefForBuckets(base, first, last, interval));
  const empty = d.totals.accepted === 0 && Object.values(d.totals).every((n) => n === 0);
  return (
    <div className="flex flex-col gap-4">
      <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="overview-range" data-start={d.range.start} data-end={d.range.end}>
        {formatUtc(d.range.start)} – {formatUtc(d.range.end)} UTC, {d.range.interval === "hour" ? "hourly" : "daily"}; compared with{" "}
        {formatUtc(d.range.previous.start)} – {formatUtc(d.range.previous.end)}.{" "}
        {d.source === "events" && <span data-testid="overview-source">Counted through GET /events (the server has no stats endpoint).</span>}
      </p>
      {empty && (
        <Alert title="No email in this range">
          Send a message through the API (<code>POST /api/v1/email</code>) or pick a longer range.
        </Alert>
      )}
      <KpiCards kpis={kpis} sent={d.totals.accepted} previousSent={d.previousTotals.accepted} />
      <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        <Card>
          <CardHeader title="Volume" description="Delivered, opened and bounced (failed + rejected) per bucket" />
          <CardBody>
            <TimeSeriesChart
              testId="chart-counts"
              title="Delivered, opened and bounced counts"
              data={d.series}
              interval={interval}
              series={COUNT_SERIES}
              bucketHref={bucketHref}
              onRangeSelect={selectRange}
            />
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Rates" description="Delivered and bounced of sent, opened of delivered" />
          <CardBody>
            <TimeSeriesChart
              testId="chart-rates"
              title="Delivery, open and bounce rates"
              unit="%"
              data={d.series}
              interval={interval}
              series={RATE_SERIES}
              bucketHref={bucketHref}
              onRangeSelect={selectRange}
            />
          </CardBody>
        </Card>
      </div>
      <BreakdownTable breakdown={d.breakdown} by={d.by} hrefFor={(by) => overviewHrefWith(base, { ...params, by: undefined }, { by })} />
    </div>
  );
}
