import { bucketLabel, formatValue } from "./chart-labels";

export interface TooltipSeries {
  key: string;
  label: string;
  color: string;
  /** The number shown beside this series' value: a count's rate, a rate's count. */
  pair?: { key: string; unit?: string };
}

/** The hovered bucket: its name and every series' value with its pair ("Delivered 1,234 · 95.2%"). */
export function ChartTooltip({
  active,
  row,
  series,
  interval,
  unit,
}: {
  active?: boolean;
  row?: Record<string, unknown>;
  series: TooltipSeries[];
  interval: "hour" | "day";
  unit: string;
}) {
  if (!active || !row || typeof row.start !== "number") return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs text-slate-900 shadow-md dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100" data-testid="chart-tooltip">
      <p className="mb-1 font-semibold">{bucketLabel(row.start, interval)} UTC</p>
      <ul className="flex flex-col gap-0.5">
        {series.map((s) => (
          <li key={s.key} className="flex items-center gap-2 tabular-nums" data-series={s.key}>
            <span className="inline-block h-2 w-2 rounded-full" style={{ background: s.color }} aria-hidden />
            <span>{s.label}</span>
            <span className="ml-auto font-medium">{formatValue(row[s.key], unit)}</span>
            {s.pair && <span className="text-slate-600 dark:text-slate-400">· {formatValue(row[s.pair.key], s.pair.unit)}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
