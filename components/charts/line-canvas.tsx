"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SeriesDef } from "./time-series-chart";

/** The recharts part of TimeSeriesChart, loaded in the browser only. */
export function LineCanvas({ rows, series, unit }: { rows: Array<Record<string, unknown> & { label: string }>; series: SeriesDef[]; unit: string }) {
  const fmt = (v: unknown) => (v === null || v === undefined ? "—" : `${Number(v).toLocaleString("en-US")}${unit}`);
  return (
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
  );
}
