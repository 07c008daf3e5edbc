import { Badge, type BadgeTone } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { Table, Td, Th } from "@/components/ui/table";
import type { HealthCheck } from "@/lib/dashboard/settings";

const TONE: Record<HealthCheck["status"], BadgeTone> = { pass: "success", warn: "warning", fail: "danger" };

/** A domain's last health checks (docs/adr/0134): each verdict, what was found, the record that would fix it. */
export function DomainChecks({ name, checks, checkedAt }: { name: string; checks: HealthCheck[]; checkedAt: string | null }) {
  if (checks.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">Not checked yet: “Check DNS” looks every record up.</p>;
  return (
    <Table aria-label={`Health checks of ${name}, ${checkedAt ? `checked ${checkedAt.replace("T", " ").slice(0, 16)} UTC` : ""}`}>
      <thead>
        <tr>
          <Th>Check</Th>
          <Th>Status</Th>
          <Th>Detail and fix</Th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c) => (
          <tr key={c.check} data-testid="domain-check">
            <Td>{c.check}</Td>
            <Td>
              <Badge tone={TONE[c.status]}>{c.status}</Badge>
            </Td>
            <Td>
              <p className="text-sm">{c.detail}</p>
              {c.fix && (
                <div className="mt-1 flex items-start gap-2">
                  <code className="line-clamp-2 max-w-md break-all font-mono text-xs" title={c.fix.value}>
                    {c.fix.type} {c.fix.name} {c.fix.value}
                  </code>
                  <CopyButton value={c.fix.value} />
                </div>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
