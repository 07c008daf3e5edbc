"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface SeriesDef {
  key: string;
  label: string;
  color: string;
}

/** Formats a bucket start (Unix seconds) for the axis: hours as HH:00, days as MM-DD (UTC). */
export function bucketLabel(start: number, interval: "hour" | "day"): string {
  const iso = new Date(start * 1000).toISOString();
  return interval === "hour" ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}:00` : iso.slice(0, 10);
}

/**
 * A line chart of buckets, with the same numbers as a table for screen
 * readers and keyboard users (a chart alone is not accessible).
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
  return (
    <figure className="flex flex-col gap-2" data-testid={testId}>
      <div className="h-64 w-full" role="img" aria-label={`${title}: line chart, ${rows.length} ${interval === "hour" ? "hours" : "days"}`}>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
            <XAxis dataKey="label" tick={{ fontSize: 11, fill: "currentColor" }} minTickGap={24} stroke="currentColor" strokeOpacity={0.4} />
            <YAxis
              tick={{ fontSize: 11, fill: "currentColor" }}
              width={48}
              allowDecimals={unit === "%"}
              stroke="currentColor"
              strokeOpacity={0.4}
              tickFormatter={(v: number) => `${v}${unit}`}
            />
            <Tooltip
              formatter={(v) => fmt(v)}
              contentStyle={{ background: "var(--color-slate-900)", border: "none", borderRadius: 6, color: "white", fontSize: 12 }}
              labelStyle={{ color: "white" }}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {series.map((s) => (
              <Line
                key={s.key}
                type="monotone"
                dataKey={s.key}
                name={s.label}
                stroke={s.color}
                strokeWidth={2}
                dot={rows.length <= 31}
                connectNulls
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
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
