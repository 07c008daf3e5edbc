import { Alert } from "@/components/ui/alert";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Table, Td, Th } from "@/components/ui/table";
import { formatUtc } from "@/components/format";
import type { CheckStatus, DomainJson } from "@/lib/contract/domains";
import type { Part } from "@/lib/dashboard/deliverability";
import { failingFirst } from "../_lib/failing-first";

export const CHECK_TONE: Record<CheckStatus, BadgeTone> = { pass: "success", warn: "warning", fail: "danger" };

/** Settings → Domains, a link for those who may open it (admins), else its name. */
function SettingsDomains({ href }: { href?: string }) {
  return href ? (
    <a className="underline" href={href}>
      Settings → Domains
    </a>
  ) : (
    <>an admin&apos;s Settings → Domains</>
  );
}

function DomainTable({ domain: d, settingsHref }: { domain: DomainJson; settingsHref?: string }) {
  const checks = failingFirst(d.Checks);
  return (
    <section className="flex flex-col gap-2" data-testid="domain-health" data-domain={d.Domain} aria-labelledby={`health-${d.Domain}`}>
      <h3 id={`health-${d.Domain}`} className="flex flex-wrap items-center gap-2 font-semibold">
        {d.Domain}
        <Badge tone={d.Status === "verified" ? "success" : "warning"}>{d.Status}</Badge>
        <span className="text-xs font-normal text-slate-600 dark:text-slate-400">{d.CheckedAt ? `checked ${formatUtc(d.CheckedAt)} UTC` : "not checked yet"}</span>
      </h3>
      {checks.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No health checks yet: <SettingsDomains href={settingsHref} /> checks its DNS now, or the daily check will.
        </p>
      ) : (
        <Table aria-label={`Health checks of ${d.Domain}`} scrollLabel={`Health checks of ${d.Domain}, scrolls sideways`}>
          <thead>
            <tr>
              <Th>Check</Th>
              <Th>Status</Th>
              <Th>What was found, and the fix</Th>
            </tr>
          </thead>
          <tbody>
            {checks.map((c) => (
              <tr key={c.Check} data-testid="health-check" data-status={c.Status}>
                <Td className="whitespace-nowrap">{c.Check}</Td>
                <Td>
                  <Badge tone={CHECK_TONE[c.Status]}>{c.Status}</Badge>
                </Td>
                <Td>
                  <p>{c.Detail}</p>
                  {c.Fix && (
                    <div className="mt-1 flex items-start gap-2">
                      <code className="max-w-xl break-all font-mono text-xs">
                        {c.Fix.Type} {c.Fix.Name} {c.Fix.Value}
                      </code>
                      <CopyButton value={c.Fix.Value} />
                    </div>
                  )}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

/** Section 2: each sender domain's last health checks, failing ones first, each with the record that fixes it. */
export function DomainHealthSection({ domains, settingsHref }: { domains: Part<DomainJson[]>; settingsHref?: string }) {
  return (
    <Card data-testid="domains-section">
      <CardHeader title="Domain health" description="Each sender domain's DNS checks, failing first, with the exact record to publish or change" />
      <CardBody className="flex flex-col gap-6">
        {!domains.ok ? (
          <Alert tone="error" title="The domains could not be read">
            {domains.error}
          </Alert>
        ) : domains.value.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No sender domain yet: add one in <SettingsDomains href={settingsHref} /> (or POST /api/v1/domains).
          </p>
        ) : (
          domains.value.map((d) => <DomainTable key={d.Domain} domain={d} settingsHref={settingsHref} />)
        )}
      </CardBody>
    </Card>
  );
}
