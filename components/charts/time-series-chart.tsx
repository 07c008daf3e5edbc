"use client";

import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { Brush, CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { formatCompact } from "../format";
import { cn } from "../ui/cn";
import { axisLabel, bucketLabel, formatValue } from "./chart-labels";
import { ChartTooltip, type TooltipSeries } from "./chart-tooltip";
import { useWidth } from "./use-width";

export type SeriesDef = TooltipSeries;

/** A horizontal line at a fixed value (a threshold), dashed, labelled on the plot and listed under the legend. */
export interface ReferenceDef {
  value: number;
  label: string;
  color: string;
}

/** The plot's height in px, the same in the server's placeholder and the drawn chart (no layout shift). */
const PLOT_HEIGHT = 256;

/**
 * A line chart of buckets, recharts in the browser (docs/adr/0517). recharts
 * draws nothing on the server, so the server's HTML has a placeholder of the
 * plot's exact size, the legend and the numbers as a table; once the box is
 * measured, the chart is drawn over the placeholder at that width. The
 * tooltip shows every series' value with its pair (a count's rate, a rate's
 * count); the legend's buttons hide and show series; a brush zooms and, when
 * released, hands its buckets to `onRangeSelect`; a click on a bucket opens
 * `bucketHref`. The table stays for screen readers and keyboard users (its
 * row headers are the same links as the clicks). `references` draws
 * thresholds across the plot; `fitValues` lets a percentage axis fit its
 * values and thresholds (a 0.08% line is invisible on 0–100%).
 */
export function TimeSeriesChart<T extends { start: number }>({
  data,
  series,
  interval,
  title,
  unit = "",
  testId,
  bucketHref,
  onRangeSelect,
  references = [],
  fitValues = false,
}: {
  data: T[];
  series: SeriesDef[];
  interval: "hour" | "day";
  title: string;
  unit?: string;
  testId?: string;
  bucketHref?: (start: number) => string;
  onRangeSelect?: (firstStart: number, lastStart: number) => void;
  references?: ReferenceDef[];
  fitValues?: boolean;
}) {
  const router = useRouter();
  const [box, width] = useWidth<HTMLDivElement>();
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  // A drag of the brush ends in a click on the chart: that click is not a bucket's.
  const pressedOnBrush = useRef(false);
  const rows = data as Array<T & Record<string, unknown>>;
  const toggle = (key: string) =>
    setHidden((h) => {
      const next = new Set(h);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const withBrush = rows.length > 2 && onRangeSelect !== undefined;
  return (
    <figure className="flex flex-col gap-2" data-testid={testId}>
      <div
        ref={box}
        className="relative w-full text-[11px] text-slate-600 dark:text-slate-400"
        style={{ height: PLOT_HEIGHT }}
        data-drawn={width > 0 ? "true" : "false"}
        onPointerDownCapture={(e) => {
          pressedOnBrush.current = e.target instanceof Element && e.target.closest(".recharts-brush") !== null;
        }}
      >
        {width > 0 ? (
          <LineChart
            width={width}
            height={PLOT_HEIGHT}
            data={rows}
            margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
            className={bucketHref ? "cursor-pointer" : undefined}
            title={`${title}: line chart, ${rows.length} ${interval === "hour" ? "hours" : "days"}`}
            onClick={(state) => {
              if (pressedOnBrush.current) return;
              const i = typeof state.activeIndex === "number" ? state.activeIndex : Number(state.activeIndex);
              const row = state.isTooltipActive && Number.isInteger(i) ? rows[i] : undefined;
              if (row && bucketHref) router.push(bucketHref(row.start));
            }}
          >
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} strokeDasharray="3 3" vertical={false} />
            <XAxis
              dataKey="start"
              tickFormatter={(s: number) => axisLabel(s, interval)}
              tick={{ fill: "currentColor" }}
              stroke="currentColor"
              strokeOpacity={0.4}
              minTickGap={12}
            />
            <YAxis
              width={44}
              tickFormatter={(v: number) => `${formatCompact(v, 10_000)}${unit}`}
              tick={{ fill: "currentColor" }}
              stroke="currentColor"
              strokeOpacity={0.4}
              allowDecimals={fitValues}
              domain={unit === "%" && !fitValues ? [0, 100] : [0, "auto"]}
            />
            {references.map((r) => (
              <ReferenceLine
                key={r.label}
                y={r.value}
                stroke={r.color}
                strokeDasharray="6 4"
                strokeWidth={1.5}
                ifOverflow="extendDomain"
                label={{ value: r.label, position: "insideTopRight", fill: "currentColor", fontSize: 11 }}
              />
            ))}
            <Tooltip
              content={(p) => <ChartTooltip active={p.active} row={p.payload?.[0]?.payload as Record<string, unknown> | undefined} series={series} interval={interval} unit={unit} />}
              cursor={{ stroke: "currentColor", strokeOpacity: 0.3 }}
              isAnimationActive={false}
            />
            {series.map((s) => (
              <Line
                key={s.key}
                className="chart-line"
                dataKey={s.key}
                name={s.label}
                stroke={s.color}
                strokeWidth={2}
                dot={rows.length <= 31 ? { r: 3, fill: s.color } : false}
                hide={hidden.has(s.key)}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
            {withBrush && (
              <Brush
                dataKey="start"
                height={22}
                stroke="#64748b"
                fill="transparent"
                tickFormatter={(s: number) => axisLabel(s, interval)}
                onDragEnd={({ startIndex, endIndex }) => {
                  const [a, b] = [rows[startIndex], rows[endIndex]];
                  if (a && b && (startIndex > 0 || endIndex < rows.length - 1)) onRangeSelect(a.start, b.start);
                }}
              />
            )}
          </LineChart>
        ) : (
          <div className="h-full w-full rounded border border-dashed border-slate-200 dark:border-slate-700" data-testid="chart-placeholder" />
        )}
      </div>
      <ul className="flex flex-wrap justify-center gap-x-2 gap-y-1 text-xs" aria-label={`${title}: series`}>
        {series.map((s) => (
          <li key={s.key}>
            <button
              type="button"
              aria-pressed={!hidden.has(s.key)}
              onClick={() => toggle(s.key)}
              className={cn(
                "flex items-center gap-1.5 rounded px-1.5 py-0.5 hover:bg-slate-100 dark:hover:bg-slate-800",
                hidden.has(s.key) && "text-slate-500 line-through dark:text-slate-400",
              )}
            >
              <span className="inline-block h-0.5 w-4 rounded" style={{ background: s.color }} aria-hidden />
              {s.label}
            </button>
          </li>
        ))}
        {references.map((r) => (
          <li key={r.label} className="flex items-center gap-1.5 px-1.5 py-0.5" data-reference={r.value}>
            <span className="inline-block w-4 border-t-2 border-dashed" style={{ borderColor: r.color }} aria-hidden />
            {r.label}
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
                    {bucketHref ? (
                      <a className="underline" href={bucketHref(r.start)}>
                        {bucketLabel(r.start, interval)}
                      </a>
                    ) : (
                      bucketLabel(r.start, interval)
                    )}
                  </th>
                  {series.map((s) => (
                    <td key={s.key} className="px-2 py-1">
                      {formatValue(r[s.key], unit)}
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
