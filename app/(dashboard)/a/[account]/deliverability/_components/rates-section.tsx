import { TimeSeriesChart } from "@/components/charts/time-series-chart";
import { Alert } from "@/components/ui/alert";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { formatUtc } from "@/components/format";
import type { ReputationResponse, ReputationStatus, ReputationWindow } from "@/lib/contract/reputation";
import type { Part } from "@/lib/dashboard/deliverability";
import type { StatsResponse } from "@/lib/contract/stats";
import { formatRate, thresholdLines, toRatePoints } from "../_lib/rate-series";

const STATUS: Record<ReputationStatus, { tone: BadgeTone; label: string }> = {
  ok: { tone: "success", label: "Sending normally" },
  warning: { tone: "warning", label: "Past a warning threshold" },
  paused: { tone: "danger", label: "Sending paused" },
};

const BOUNCE_SERIES = [{ key: "bounceRate", label: "Bounce rate", color: "#dc2626" }];
const COMPLAINT_SERIES = [{ key: "complaintRate", label: "Complaint rate", color: "#7c3aed" }];

function WindowLine({ name, w }: { name: string; w: ReputationWindow }) {
  return (
    <li className="tabular-nums">
      <span className="font-medium">{name}:</span> bounces {formatRate(w.BounceRate)} ({w.Bounced.toLocaleString("en-US")} of {w.Sent.toLocaleString("en-US")} sent), complaints{" "}
      {formatRate(w.ComplaintRate)} ({w.Complained.toLocaleString("en-US")} of {w.Delivered.toLocaleString("en-US")} delivered)
    </li>
  );
}

function Reputation({ reputation }: { reputation: Part<ReputationResponse | null> }) {
  if (!reputation.ok) return <Alert tone="error" title="The reputation could not be read">{reputation.error}</Alert>;
  const r = reputation.value;
  if (!r) {
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="reputation-absent">
        This server has no reputation guardrails (GET /api/v1/reputation answered 404): the rates are shown without thresholds.
      </p>
    );
  }
  const t = r.Thresholds;
  return (
    <div className="flex flex-col gap-2 text-sm" data-testid="reputation">
      <p className="flex flex-wrap items-center gap-2">
        <Badge tone={STATUS[r.Status].tone}>{STATUS[r.Status].label}</Badge>
        {r.Status === "paused" && (
          <span>
            since {r.PausedAt ? `${formatUtc(r.PausedAt)} UTC` : "—"}: {r.PausedReason ?? "no reason recorded"}. An owner resumes it.
          </span>
        )}
      </p>
      <ul className="text-slate-700 dark:text-slate-300">
        <WindowLine name="Last day" w={r.Windows.day} />
        <WindowLine name="Last week" w={r.Windows.week} />
      </ul>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Warning at {formatRate(t.WarnBounceRate)} bounces or {formatRate(t.WarnComplaintRate)} complaints, pause at {formatRate(t.PauseBounceRate)} or{" "}
        {formatRate(t.PauseComplaintRate)}, once a window has {t.MinVolume.toLocaleString("en-US")} sent recipients.
      </p>
    </div>
  );
}

/** Section 1: the daily bounce and complaint rates of the last 30 days, the guardrails' thresholds drawn across them. */
export function RatesSection({ stats, reputation }: { stats: Part<{ stats: StatsResponse }>; reputation: Part<ReputationResponse | null> }) {
  const thresholds = reputation.ok ? reputation.value?.Thresholds : undefined;
  const points = stats.ok ? toRatePoints(stats.value.stats) : [];
  return (
    <Card data-testid="rates-section">
      <CardHeader title="Bounce and complaint rates" description="Daily, last 30 days: bounced of sent, complaints of delivered, against the account's guardrails" />
      <CardBody className="flex flex-col gap-4">
        <Reputation reputation={reputation} />
        {stats.ok ? (
          <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
            <TimeSeriesChart testId="chart-bounce-rate" title="Daily bounce rate" unit="%" fitValues data={points} interval="day" series={BOUNCE_SERIES} references={thresholdLines(thresholds, "bounce")} />
            <TimeSeriesChart
              testId="chart-complaint-rate"
              title="Daily complaint rate"
              unit="%"
              fitValues
              data={points}
              interval="day"
              series={COMPLAINT_SERIES}
              references={thresholdLines(thresholds, "complaint")}
            />
          </div>
        ) : (
          <Alert tone="error" title="The daily counts could not be read">
            {stats.error}
          </Alert>
        )}
      </CardBody>
    </Card>
  );
}
