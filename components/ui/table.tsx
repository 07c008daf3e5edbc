import type { HTMLAttributes, TdHTMLAttributes, ThHTMLAttributes } from "react";
import { cn } from "./cn";

/**
 * A table in a box that scrolls sideways when it is wider than the page. `scrollLabel` makes
 * that box a named, focusable region, so a keyboard can scroll it (axe: scrollable-region-focusable).
 */
export function Table({ className, scrollLabel, ...props }: HTMLAttributes<HTMLTableElement> & { scrollLabel?: string }) {
  return (
    <div className="w-full overflow-x-auto" {...(scrollLabel && { role: "region", "aria-label": scrollLabel, tabIndex: 0 })}>
      <table className={cn("w-full border-collapse text-left text-sm", className)} {...props} />
    </div>
  );
}

export function Th({ className, ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope="col"
      className={cn(
        "border-b border-slate-200 bg-slate-50 px-3 py-2 text-xs font-semibold uppercase tracking-wide text-slate-600 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300",
        className,
      )}
      {...props}
    />
  );
}

export function Td({ className, ...props }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cn("border-b border-slate-100 px-3 py-2 align-top dark:border-slate-800", className)} {...props} />;
}
