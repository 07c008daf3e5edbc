"use client";

import Link from "next/link";
import { useState } from "react";
import { formatNumber, formatPercent, formatUtc } from "@/components/format";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Table, Td, Th } from "@/components/ui/table";
import { STATS_BREAKDOWNS, type Breakdown, type StatsBreakdownBy } from "@/lib/contract/stats";
import { BREAKDOWN_LABELS, DEFAULT_SORT, RATE_COLUMNS, breakdownLines, nextSort, sortLines, type BreakdownLine, type Sort, type SortKey } from "../_lib/overview-breakdown";

function Change({ points, higherIsBetter }: { points: number | undefined; higherIsBetter: boolean }) {
  if (points === undefined) return null;
  const flat = Math.abs(points) < 0.05;
  const good = flat ? undefined : (points > 0) === higherIsBetter;
  return (
    <span
      className={cn(
        "block text-xs",
        good === undefined ? "text-slate-600 dark:text-slate-400" : good ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400",
      )}
    >
      {flat ? "0.0 pts" : `${points > 0 ? "+" : ""}${points.toFixed(1)} pts`}
      <span className="sr-only"> against the previous period</span>
    </span>
  );
}

function SortHeader({ label, column, sort, onSort, className }: { label: string; column: SortKey; sort: Sort; onSort: (k: SortKey) => void; className?: string }) {
  const active = sort.key === column;
  return (
    <Th aria-sort={active ? (sort.descending ? "descending" : "ascending") : "none"} className={className}>
      <button type="button" className="inline-flex items-center gap-1 uppercase hover:underline" onClick={() => onSort(column)}>
        {label}
        <span aria-hidden>{active ? (sort.descending ? "▼" : "▲") : ""}</span>
      </button>
    </Th>
  );
}

/**
 * Sent and the five rates per tag, provider, recipient domain or sender domain, each with
 * its change against the previous period (GET /stats?By=, docs/adr/0517). The dimension is
 * in the URL (`by`, links); the order is the header clicked.
 */
export function BreakdownTable({
  breakdown,
  by,
  hrefFor,
}: {
  breakdown: Breakdown | undefined;
  by: StatsBreakdownBy;
  hrefFor: (by: StatsBreakdownBy) => string;
}) {
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const lines: BreakdownLine[] = breakdown ? sortLines(breakdownLines(breakdown.Rows), sort) : [];
  const onSort = (k: SortKey) => setSort((s) => nextSort(s, k));
  return (
    <Card data-testid="breakdown">
      <CardHeader
        title="Breakdown"
        description={
          breakdown
            ? `From the hourly summaries, up to ${formatUtc(breakdown.SummarisedUntil)} UTC; changes against the previous period.`
            : "Breakdowns need the server's GET /stats."
        }
        actions={
          <nav aria-label="Breakdown by" className="inline-flex flex-wrap rounded-md border border-slate-300 p-0.5 dark:border-slate-600">
            {STATS_BREAKDOWNS.map((b) => (
              <Link
                key={b}
                href={hrefFor(b)}
                scroll={false}
                aria-current={b === by ? "page" : undefined}
                className={cn(
                  "rounded px-2.5 py-1 text-sm font-medium",
                  b === by ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800",
                )}
              >
                {BREAKDOWN_LABELS[b]}
              </Link>
            ))}
          </nav>
        }
      />
      <CardBody className="p-0">
        {breakdown && lines.length === 0 ? (
          <p className="p-4 text-sm text-slate-600 dark:text-slate-400">Nothing summarised in this range yet.</p>
        ) : (
          breakdown && (
            <Table data-testid="breakdown-table">
              <caption className="sr-only">Breakdown by {BREAKDOWN_LABELS[by].toLowerCase()}</caption>
              <thead>
                <tr>
                  <SortHeader label={BREAKDOWN_LABELS[by]} column="value" sort={sort} onSort={onSort} />
                  <SortHeader label="Sent" column="sent" sort={sort} onSort={onSort} className="text-right" />
                  {RATE_COLUMNS.map((c) => (
                    <SortHeader key={c.key} label={c.label} column={c.key} sort={sort} onSort={onSort} className="text-right" />
                  ))}
                </tr>
              </thead>
              <tbody>
                {lines.map((l) => (
                  <tr key={l.value} data-value={l.value}>
                    <Td className="max-w-[16rem] break-all font-medium">{l.label}</Td>
                    <Td className="text-right tabular-nums">
                      {formatNumber(l.sent)}
                      <span className="block text-xs text-slate-600 dark:text-slate-400">before: {formatNumber(l.previousSent)}</span>
                    </Td>
                    {RATE_COLUMNS.map((c) => (
                      <Td key={c.key} className="text-right tabular-nums" data-rate={c.key}>
                        {formatPercent(l.rates[c.key] ?? undefined)}
                        <Change points={l.changes[c.key]} higherIsBetter={c.higherIsBetter} />
                      </Td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        )}
      </CardBody>
    </Card>
  );
}
