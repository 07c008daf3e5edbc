"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Field, Input } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import type { DnsRecord, HealthCheck } from "@/lib/dashboard/settings";
import { addDomainAction, deleteDomainAction, rotateDkimAction, verifyDomainAction } from "../actions";
import { DomainChecks } from "./domain-checks";
import { formatIso, useSettingsAction } from "./use-action";

export interface DomainView {
  id: string;
  name: string;
  status: string;
  verifiedAt: string | null;
  records: DnsRecord[];
  checks: HealthCheck[];
  checkedAt: string | null;
}

export function DomainsCard({ domains }: { domains: DomainView[] }) {
  const { run, error, pending, accountId } = useSettingsAction();
  const [name, setName] = useState("");
  const [checks, setChecks] = useState<Record<string, { verified: boolean; detail: string }>>({});
  const [checking, setChecking] = useState<string | null>(null);
  return (
    <Card id="domains" data-testid="domains">
      <CardHeader
        title="Sender domains"
        description="Mail is sent only From a verified domain. Publish the records below at your DNS provider, then verify."
      />
      <CardBody className="flex flex-col gap-4">
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await run(() => addDomainAction(accountId, name))) setName("");
          }}
        >
          <Field id="domain-name" label="Domain" className="min-w-64 flex-1">
            <Input id="domain-name" value={name} placeholder="mail.example.com" onChange={(e) => setName(e.target.value)} required spellCheck={false} />
          </Field>
          <Button type="submit" disabled={pending}>
            Add domain
          </Button>
        </form>
        {error && <Alert tone="error" title="Not done">{error}</Alert>}
        {domains.length === 0 && <p className="text-sm text-slate-600 dark:text-slate-400">No sender domains yet.</p>}
        <ul className="flex flex-col gap-3">
          {domains.map((d) => (
            <li key={d.id} data-testid="domain-row" className="rounded-md border border-slate-200 dark:border-slate-800">
              <details open={d.status !== "verified"}>
                <summary className="flex cursor-pointer flex-wrap items-center gap-3 px-3 py-2">
                  <span className="font-mono text-sm font-semibold">{d.name}</span>
                  {d.status === "verified" ? (
                    <Badge tone="success">verified {formatIso(d.verifiedAt).slice(0, 10)}</Badge>
                  ) : (
                    <Badge tone="warning">{d.status}</Badge>
                  )}
                  <span className="text-xs text-slate-600 dark:text-slate-400">DNS records</span>
                </summary>
                <div className="flex flex-col gap-3 border-t border-slate-200 p-3 dark:border-slate-800">
                  <Table aria-label={`DNS records of ${d.name}`}>
                    <thead>
                      <tr>
                        <Th>Purpose</Th>
                        <Th>Type</Th>
                        <Th>Name</Th>
                        <Th>Value</Th>
                      </tr>
                    </thead>
                    <tbody>
                      {d.records.map((r) => (
                        <tr key={`${r.purpose} ${r.name}`}>
                          <Td>{r.purpose}</Td>
                          <Td>{r.type}</Td>
                          <Td className="font-mono text-xs break-all">{r.name}</Td>
                          <Td>
                            <div className="flex items-start gap-2">
                              <code className="line-clamp-2 max-w-md break-all font-mono text-xs" title={r.value}>
                                {r.value}
                              </code>
                              <CopyButton value={r.value} />
                            </div>
                          </Td>
                        </tr>
                      ))}
                    </tbody>
                  </Table>
                  <DomainChecks name={d.name} checks={d.checks} checkedAt={d.checkedAt} />
                  <div className="flex flex-wrap items-center gap-3">
                      <Button
                        variant="secondary"
                        size="sm"
                        disabled={checking === d.id}
                        onClick={async () => {
                          setChecking(d.id);
                          const result = await run(() => verifyDomainAction(accountId, d.id));
                          setChecking(null);
                          if (result) setChecks((c) => ({ ...c, [d.id]: { verified: result.data.verified, detail: result.data.detail } }));
                        }}
                      >
                        {checking === d.id ? "Checking DNS…" : d.status === "verified" ? "Check DNS" : "Verify"}
                      </Button>
                      <Button variant="secondary" size="sm" disabled={pending} onClick={() => run(() => rotateDkimAction(accountId, d.id))}>
                        Rotate DKIM key
                      </Button>
                      <ConfirmButton
                        label="Delete"
                        title={`Delete ${d.name}?`}
                        confirmLabel={`Delete ${d.name}`}
                        disabled={pending}
                        onConfirm={async () => {
                          await run(() => deleteDomainAction(accountId, d.id));
                        }}
                      >
                        Mail From {d.name} is refused from then on; its DKIM key is discarded.
                      </ConfirmButton>
                      {checks[d.id] && (
                        <p role="status" className={`text-sm ${checks[d.id]!.verified ? "text-emerald-700 dark:text-emerald-300" : "text-amber-800 dark:text-amber-200"}`}>
                          {checks[d.id]!.detail}
                        </p>
                      )}
                  </div>
                  <p className="text-xs text-slate-600 dark:text-slate-400">
                    The <code>_mailroom</code> TXT record proves ownership; DKIM signs every message with this domain&apos;s key. The checks also run daily. The CLI
                    and the API do the same: <code>mailroom domains verify {d.name}</code>, <code>POST /api/v1/domains/{d.name}/verify</code>.
                  </p>
                </div>
              </details>
            </li>
          ))}
        </ul>
      </CardBody>
    </Card>
  );
}
