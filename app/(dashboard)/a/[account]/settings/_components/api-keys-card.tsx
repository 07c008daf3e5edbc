"use client";

import { useState } from "react";
import { NewKeyPanel } from "@/components/new-key-panel";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { Field, Input, Select } from "@/components/ui/input";
import type { ApiKeyScope } from "@/lib/contract/api-keys";
import type { ApiKeyView } from "@/lib/dashboard/settings";
import { Table, Td, Th } from "@/components/ui/table";
import { createApiKeyAction, revokeApiKeyAction } from "../actions";
import { formatIso, useSettingsAction } from "./use-action";

export type { ApiKeyView };

/** What each scope may do (docs/contract.md §17.2), as the form and the table say it. */
const SCOPE_TEXT: Record<ApiKeyScope, string> = {
  full: "Full: everything",
  send: "Send: POST /email and SMTP only",
  read: "Read: GET endpoints only",
};

export function ApiKeysCard({ keys }: { keys: ApiKeyView[] }) {
  const { run, error, pending, accountId } = useSettingsAction();
  const [created, setCreated] = useState<{ apiKey: string; label: string } | null>(null);
  const [label, setLabel] = useState("");
  const [scope, setScope] = useState<ApiKeyScope>("full");
  const [domains, setDomains] = useState("");
  return (
    <Card id="api-keys" data-testid="api-keys">
      <CardHeader title="API keys" description="Keys authenticate calls to /api/v1. A key is shown once, when it is created; only its prefix is kept readable." />
      <CardBody className="flex flex-col gap-4">
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={async (e) => {
            e.preventDefault();
            const result = await run(() => createApiKeyAction(accountId, { label, scope, domains }));
            if (result) {
              setCreated({ apiKey: result.data.apiKey, label });
              setLabel("");
              setScope("full");
              setDomains("");
            }
          }}
        >
          <Field id="key-label" label="Label" hint="What the key is for, e.g. “billing service”" className="min-w-64 flex-1">
            <Input id="key-label" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} aria-describedby="key-label-hint" />
          </Field>
          <Field id="key-scope" label="Scope" className="min-w-56">
            <Select id="key-scope" value={scope} onChange={(e) => setScope(e.target.value as ApiKeyScope)}>
              {(Object.keys(SCOPE_TEXT) as ApiKeyScope[]).map((s) => (
                <option key={s} value={s}>
                  {SCOPE_TEXT[s]}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="key-domains" label="Sender domains" hint="Optional, comma-separated: the key sends only From these" className="min-w-64 flex-1">
            <Input
              id="key-domains"
              value={domains}
              maxLength={2000}
              placeholder="every verified domain"
              onChange={(e) => setDomains(e.target.value)}
              aria-describedby="key-domains-hint"
            />
          </Field>
          <Button type="submit" disabled={pending}>
            Create key
          </Button>
        </form>
        {error && <Alert tone="error" title="Not done">{error}</Alert>}
        {created && (
          <NewKeyPanel lead={`New key${created.label ? ` “${created.label}”` : ""}`} secret={created.apiKey} testId="new-api-key">
            <Button variant="ghost" size="sm" onClick={() => setCreated(null)}>
              Done
            </Button>
          </NewKeyPanel>
        )}
        <Table aria-label="API keys">
          <thead>
            <tr>
              <Th>Label</Th>
              <Th>Prefix</Th>
              <Th>Scope</Th>
              <Th>Created (UTC)</Th>
              <Th>Last used (UTC)</Th>
              <Th>Status</Th>
              <Th className="relative">
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} data-testid="api-key-row">
                <Td>{k.label || <span className="text-slate-500 dark:text-slate-400">(no label)</span>}</Td>
                <Td className="font-mono text-xs">{k.prefix}…</Td>
                <Td data-testid="api-key-scope">
                  <span title={SCOPE_TEXT[k.scope]}>
                    <Badge tone={k.scope === "full" ? "neutral" : "info"}>{k.scope}</Badge>
                  </span>
                  {k.senderDomains && <span className="ml-2 text-xs text-slate-600 dark:text-slate-400">from {k.senderDomains.join(", ")}</span>}
                </Td>
                <Td className="whitespace-nowrap">{formatIso(k.createdAt)}</Td>
                <Td className="whitespace-nowrap">{k.lastUsedAt ? formatIso(k.lastUsedAt) : "never"}</Td>
                <Td>{k.revokedAt ? <Badge tone="danger">revoked {formatIso(k.revokedAt).slice(0, 10)}</Badge> : <Badge tone="success">active</Badge>}</Td>
                <Td className="text-right">
                  {!k.revokedAt && (
                    <ConfirmButton
                      label="Revoke"
                      title={`Revoke the key ${k.prefix}…?`}
                      confirmLabel="Revoke the key"
                      onConfirm={async () => void (await run(() => revokeApiKeyAction(accountId, k.id)))}
                    >
                      <p>Every call made with this key is refused from now on (within 5 seconds in other processes). This cannot be undone.</p>
                      {k.label === "dashboard" && <p className="mt-2">This is the dashboard&apos;s own key: a new one is provisioned for it at once.</p>}
                    </ConfirmButton>
                  )}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </CardBody>
    </Card>
  );
}
