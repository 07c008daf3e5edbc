import { formatCompact } from "../format";
import { PLOT, axisLabel, bucketLabel, dotsPath, hoverBand, labelledBuckets, linePath, niceTicks, xOf, yOf } from "./chart-geometry";

export interface SeriesDef {
  key: string;
  label: string;
  color: string;
}

/** Up to 31 buckets, each point gets a dot. */
const MAX_DOTTED_BUCKETS = 31;

/**
 * A line chart of buckets, drawn as SVG on the server (ADR 0516): the lines
 * are in the first HTML, with no charting library to download and hydrate.
 * The plot stretches to its box (its strokes do not), the axis labels are
 * HTML placed by percentage, and hovering a bucket shows its numbers (the
 * SVG <title>). The same numbers are a table for screen readers and keyboard
 * users (a chart alone is not accessible).
 */
export function TimeSeriesChart<T extends { start: number }>({
  data,
  series,
  interval,
  title,
  unit = "",
  testId,
}: {
  data: T[];
  series: SeriesDef[];
  interval: "hour" | "day";
  title: string;
  unit?: string;
  testId?: string;
}) {
  const rows = data.map((d) => ({ ...d, label: bucketLabel(d.start, interval) }));
  const fmt = (v: unknown) => (v === null || v === undefined ? "—" : `${Number(v).toLocaleString("en-US")}${unit}`);
  const values = new Map(series.map((s) => [s.key, rows.map((r) => (r as Record<string, unknown>)[s.key] as number | null | undefined)]));
  const valuesOf = (key: string) => values.get(key)!;
  const max = Math.max(0, ...[...values.values()].flat().map((v) => (typeof v === "number" && Number.isFinite(v) ? v : 0)));
  const ticks = niceTicks(max, 4, unit === "%");
  const top = ticks[ticks.length - 1]!;
  const pct = (n: number) => `${(n / PLOT) * 100}%`;
  return (
    <figure className="flex flex-col gap-2" data-testid={testId}>
      <div className="@container relative h-64 w-full text-[11px]" role="img" aria-label={`${title}: line chart, ${rows.length} ${interval === "hour" ? "hours" : "days"}`}>
        <div className="absolute bottom-6 left-0 top-2 w-11" aria-hidden>
          {ticks.map((t) => (
            <span key={t} className="absolute right-1 -translate-y-1/2 text-slate-600 dark:text-slate-400" style={{ top: pct(yOf(t, top)) }}>
              {`${formatCompact(t, 10_000)}${unit}`}
            </span>
          ))}
        </div>
        <div className="absolute bottom-6 left-12 right-4 top-2">
          <svg className="absolute inset-0 h-full w-full overflow-visible" viewBox={`0 0 ${PLOT} ${PLOT}`} preserveAspectRatio="none" aria-hidden>
            {ticks.map((t) => (
              <line
                key={t}
                x1={0}
                x2={PLOT}
                y1={yOf(t, top)}
                y2={yOf(t, top)}
                stroke="currentColor"
                strokeOpacity={t === 0 ? 0.4 : 0.15}
                strokeDasharray={t === 0 ? undefined : "3 3"}
                vectorEffect="non-scaling-stroke"
              />
            ))}
            {series.map((s) => (
              <g key={s.key} data-series={s.key}>
                <path className="chart-line" d={linePath(valuesOf(s.key), top)} fill="none" stroke={s.color} strokeWidth={2} strokeLinejoin="round" vectorEffect="non-scaling-stroke" />
                {rows.length <= MAX_DOTTED_BUCKETS && (
                  <path d={dotsPath(valuesOf(s.key), top)} stroke={s.color} strokeWidth={6} strokeLinecap="round" vectorEffect="non-scaling-stroke" />
                )}
              </g>
            ))}
            {rows.map((r, i) => (
              <rect key={r.start} {...hoverBand(i, rows.length)} y={0} height={PLOT} fill="transparent" className="hover:fill-slate-500/10">
                <title>{[r.label, ...series.map((s) => `${s.label}: ${fmt((r as Record<string, unknown>)[s.key])}`)].join("\n")}</title>
              </rect>
            ))}
          </svg>
        </div>
        <div className="absolute bottom-0 left-12 right-4 h-5" aria-hidden>
          {labelledBuckets(rows.length).map((i, j) => (
            // Every other label only on a narrow chart (a phone): the labels would overlap.
            <span
              key={i}
              className={`absolute -translate-x-1/2 whitespace-nowrap text-slate-600 dark:text-slate-400 ${j % 2 === 1 ? "hidden @md:inline" : ""}`}
              style={{ left: pct(xOf(i, rows.length)) }}
            >
              {axisLabel(rows[i]!.start, interval)}
            </span>
          ))}
        </div>
      </div>
      <ul className="flex flex-wrap justify-center gap-x-4 gap-y-1 text-xs" aria-hidden>
        {series.map((s) => (
          <li key={s.key} className="flex items-center gap-1.5">
            <span className="inline-block h-0.5 w-4 rounded" style={{ background: s.color }} />
            {s.label}
          </li>
        ))}
      </ul>
      <details className="text-sm">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">Show the numbers as a table</summary>
        <div className="mt-2 max-h-64 overflow-auto">
          <table className="w-full text-left text-xs">
            <caption className="sr-only">{title}</caption>
            <thead>
              <tr>
                <th scope="col" className="px-2 py-1">
                  {interval === "hour" ? "Hour (UTC)" : "Day (UTC)"}
                </th>
                {series.map((s) => (
                  <th key={s.key} scope="col" className="px-2 py-1">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.start} className="border-t border-slate-100 dark:border-slate-800">
                  <th scope="row" className="px-2 py-1 font-normal">
                    {r.label}
                  </th>
                  {series.map((s) => (
                    <td key={s.key} className="px-2 py-1">
                      {fmt((r as Record<string, unknown>)[s.key])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      <figcaption className="sr-only">{title}</figcaption>
    </figure>
  );
}
