import Link from "next/link";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import type { OverviewRange } from "../_lib/overview";

const PRESETS = [
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
] as const;

/** Preset links and a custom date range (a GET form: the range is in the URL). */
export function RangePicker({ range, base }: { range: OverviewRange; base: string }) {
  return (
    <div className="flex flex-wrap items-end gap-3">
      <nav aria-label="Range" className="inline-flex rounded-md border border-slate-300 bg-white p-0.5 dark:border-slate-600 dark:bg-slate-900">
        {PRESETS.map((p) => {
          const active = range.preset === p.value;
          return (
            <Link
              key={p.value}
              href={`${base}?range=${p.value}`}
              aria-current={active ? "page" : undefined}
              className={cn(
                "rounded px-3 py-1.5 text-sm font-medium",
                active ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800",
              )}
            >
              {p.label}
            </Link>
          );
        })}
      </nav>
      <form action={base} method="get" className="flex flex-wrap items-end gap-2" aria-label="Custom range">
        <input type="hidden" name="range" value="custom" />
        <div className="flex flex-col gap-1">
          <label htmlFor="range-from" className="text-xs font-medium text-slate-700 dark:text-slate-300">
            From (UTC)
          </label>
          <Input id="range-from" name="from" type="date" required defaultValue={range.fromDate} className="h-9 w-40" />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="range-to" className="text-xs font-medium text-slate-700 dark:text-slate-300">
            To (UTC)
          </label>
          <Input id="range-to" name="to" type="date" required defaultValue={range.toDate} className="h-9 w-40" />
        </div>
        <Button type="submit" variant={range.preset === "custom" ? "primary" : "secondary"} size="sm" className="h-9">
          Apply
        </Button>
      </form>
    </div>
  );
}
