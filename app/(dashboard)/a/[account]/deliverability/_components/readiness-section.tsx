import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import type { CheckStatus } from "@/lib/contract/domains";
import type { ReadinessLine } from "../_lib/readiness";
import { CHECK_TONE } from "./domain-health-section";

const VERDICT: Record<CheckStatus, string> = {
  pass: "Ready for the bulk-sender rules",
  warn: "Nearly ready: see the warnings",
  fail: "Not ready: fix what fails",
};

/** Section 4: the 2024–25 bulk-sender rules of Gmail, Yahoo and Microsoft, one line each, pass, warn or fail with why. */
export function ReadinessSection({ verdict }: { verdict: { status: CheckStatus; lines: ReadinessLine[] } }) {
  return (
    <Card data-testid="readiness-section">
      <CardHeader
        title="Bulk-sender readiness"
        description="The 2024–25 requirements of Gmail, Yahoo and Microsoft for senders of bulk mail"
        actions={
          <Badge tone={CHECK_TONE[verdict.status]} className="text-sm">
            <span data-testid="readiness-verdict" data-status={verdict.status}>
              {VERDICT[verdict.status]}
            </span>
          </Badge>
        }
      />
      <CardBody>
        <ul className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
          {verdict.lines.map((l) => (
            <li key={l.id} className="flex flex-col gap-1 py-2 sm:flex-row sm:items-start sm:gap-3" data-testid="readiness-line" data-id={l.id} data-status={l.status}>
              <span className="w-14 shrink-0">
                <Badge tone={CHECK_TONE[l.status]}>{l.status}</Badge>
              </span>
              <div className="min-w-0">
                <p className="font-medium">{l.rule}</p>
                <p className="break-words text-sm text-slate-600 dark:text-slate-400">{l.why}</p>
              </div>
            </li>
          ))}
        </ul>
      </CardBody>
    </Card>
  );
}
