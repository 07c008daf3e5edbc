import { Badge } from "@/components/ui/badge";
import type { InboundStatusName } from "@/lib/contract/inbound";

const TONE = { pending: "warning", delivered: "success", failed: "danger" } as const;

/** A received message's delivery status to its route's URL, with the number of POSTs so far. */
export function StatusBadge({ status, attempts }: { status: InboundStatusName; attempts: number }) {
  return (
    <span className="inline-flex items-center gap-2 whitespace-nowrap" data-testid="inbound-status" data-status={status}>
      <Badge tone={TONE[status]}>{status}</Badge>
      <span className="text-xs text-slate-600 dark:text-slate-400">
        {attempts} {attempts === 1 ? "attempt" : "attempts"}
      </span>
    </span>
  );
}
