import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Table, Td, Th } from "@/components/ui/table";
import type { DmarcResponse } from "@/lib/contract/dmarc";
import type { DeliverabilityData } from "@/lib/dashboard/deliverability";

const share = (n: number, of: number) => (of > 0 ? `${Math.round((n / of) * 100)}%` : "—");

function Sources({ report }: { report: DmarcResponse }) {
  const unknown = report.Sources.filter((s) => !s.KnownSource).length;
  return (
    <>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        {report.Reports.toLocaleString("en-US")} {report.Reports === 1 ? "report" : "reports"}, {report.Sources.length} sending {report.Sources.length === 1 ? "address" : "addresses"}
        {unknown > 0 && (
          <>
            {" "}
            · <strong className="text-red-700 dark:text-red-300">{unknown} not this instance&apos;s: another sender uses the domain</strong>
          </>
        )}
      </p>
      <Table aria-label={`DMARC sources of ${report.Domain}`} scrollLabel={`DMARC sources of ${report.Domain}, scrolls sideways`}>
        <thead>
          <tr>
            <Th>Source</Th>
            <Th>Messages</Th>
            <Th>DMARC pass</Th>
            <Th>SPF aligned</Th>
            <Th>DKIM aligned</Th>
            <Th>None / quarantine / reject</Th>
            <Th>Reported by</Th>
          </tr>
        </thead>
        <tbody>
          {report.Sources.map((s) => (
            <tr key={s.SourceIp} data-testid="dmarc-source" data-known={s.KnownSource} className={s.KnownSource ? undefined : "bg-red-50 dark:bg-red-950/40"}>
              <Td className="whitespace-nowrap">
                <code className="font-mono text-xs">{s.SourceIp}</code>{" "}
                {s.KnownSource ? <Badge tone="success">this instance</Badge> : <Badge tone="danger">unknown sender</Badge>}
              </Td>
              <Td className="tabular-nums">{s.Count.toLocaleString("en-US")}</Td>
              <Td className="tabular-nums">{share(s.DmarcPass, s.Count)}</Td>
              <Td className="tabular-nums">{share(s.SpfAligned, s.Count)}</Td>
              <Td className="tabular-nums">{share(s.DkimAligned, s.Count)}</Td>
              <Td className="whitespace-nowrap tabular-nums">
                {s.Disposition.none} / {s.Disposition.quarantine} / {s.Disposition.reject}
              </Td>
              <Td className="text-xs">{s.Reporters.join(", ")}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </>
  );
}

/** Section 3: who sends as each domain, from the receivers' DMARC aggregate reports; an address not of this instance is flagged. */
export function DmarcSection({ dmarc, domainsRead }: { dmarc: DeliverabilityData["dmarc"]; domainsRead: boolean }) {
  return (
    <Card data-testid="dmarc-section">
      <CardHeader title="DMARC sources" description="Last 30 days of aggregate reports (RFC 7489): every address that sent as your domains, and whether it passed" />
      <CardBody className="flex flex-col gap-6">
        {dmarc.length === 0 && <p className="text-sm text-slate-600 dark:text-slate-400">{domainsRead ? "No sender domain, so no DMARC reports yet." : "The domains could not be read."}</p>}
        {dmarc.map(({ domain, result }) => (
          <section key={domain} className="flex flex-col gap-2" data-testid="dmarc-domain" data-domain={domain} aria-labelledby={`dmarc-${domain}`}>
            <h3 id={`dmarc-${domain}`} className="font-semibold">
              {domain}
            </h3>
            {!result.ok ? (
              <Alert tone="error" title="The DMARC reports could not be read">
                {result.error}
              </Alert>
            ) : !result.value || result.value.Sources.length === 0 ? (
              <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="dmarc-empty">
                No DMARC reports yet. Receivers send them to the rua= address of the domain&apos;s DMARC record (see its dmarc check above), about once a day.
              </p>
            ) : (
              <Sources report={result.value} />
            )}
          </section>
        ))}
      </CardBody>
    </Card>
  );
}
