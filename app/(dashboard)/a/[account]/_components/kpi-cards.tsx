import { formatCompact, formatNumber, formatPercent } from "@/components/format";
import { Card } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import type { Kpi } from "../_lib/overview";

function Change({ kpi }: { kpi: Kpi }) {
  if (kpi.countChange === undefined && kpi.rateChangePoints === undefined) {
    return <span className="text-slate-600 dark:text-slate-400">no data for the previous period</span>;
  }
  const pts = kpi.rateChangePoints;
  const good = pts === undefined || Math.abs(pts) < 0.05 ? undefined : (pts > 0) === kpi.higherIsBetter;
  const arrow = pts === undefined || Math.abs(pts) < 0.05 ? "→" : pts > 0 ? "↑" : "↓";
  return (
    <span
      className={cn(
        good === undefined ? "text-slate-600 dark:text-slate-400" : good ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400",
      )}
    >
      <span aria-hidden>{arrow} </span>
      {pts !== undefined && (Math.abs(pts) < 0.05 ? "0.0 pts" : `${pts > 0 ? "+" : ""}${pts.toFixed(1)} pts`)}
      {kpi.countChange !== undefined && ` · count ${kpi.countChange >= 0 ? "+" : ""}${Math.round(kpi.countChange * 100)}%`}
      <span className="sr-only"> against the previous period</span>
    </span>
  );
}

export function KpiCards({ kpis, sent, previousSent }: { kpis: Kpi[]; sent: number; previousSent: number }) {
  return (
    <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-7">
      <Card className="p-4" data-testid="kpi-sent">
        <p className="text-sm font-medium text-slate-600 dark:text-slate-400">Sent</p>
        <p className="mt-1 text-2xl font-bold tabular-nums" data-testid="kpi-sent-count" title={formatNumber(sent)}>
          {formatCompact(sent)}
        </p>
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">accepted recipients · before: {formatNumber(previousSent)}</p>
      </Card>
      {kpis.map((k) => (
        <Card key={k.key} className="p-4" data-testid={`kpi-${k.key}`}>
          <p className="text-sm font-medium text-slate-600 dark:text-slate-400">{k.label}</p>
          {/* Millions compact (38.99M): a full 8-digit count overflows a card of the 7-column row; the title has it in full. */}
          <p className="mt-1 text-2xl font-bold tabular-nums" data-testid={`kpi-${k.key}-count`} title={formatNumber(k.count)}>
            {formatCompact(k.count)}
          </p>
          <p className="text-sm tabular-nums">
            <span data-testid={`kpi-${k.key}-rate`}>{formatPercent(k.rate)}</span>
            <span className="text-xs text-slate-600 dark:text-slate-400"> of {k.rateOf}</span>
          </p>
          <p className="mt-1 text-xs">
            <Change kpi={k} />
          </p>
        </Card>
      ))}
    </div>
  );
}
