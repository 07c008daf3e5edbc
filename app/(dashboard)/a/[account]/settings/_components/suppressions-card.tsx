"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { Field, Input } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { addSuppressionAction, removeSuppressionAction } from "../actions";
import { formatIso, useSettingsAction } from "./use-action";

export interface SuppressionView {
  email: string;
  reason: string;
  detail: string;
  createdAt: string;
  messageId: string | null;
}

const REASON_TONE: Record<string, BadgeTone> = { "hard-bounce": "danger", complaint: "warning", unsubscribe: "info", manual: "neutral" };

export function SuppressionsCard({ suppressions, query }: { suppressions: SuppressionView[]; query: string }) {
  const router = useRouter();
  const { run, error, pending, accountId } = useSettingsAction();
  const [email, setEmail] = useState("");
  return (
    <Card id="suppressions" data-testid="suppressions">
      <CardHeader
        title="Suppression list"
        description="Addresses that receive no mail from this account: hard bounces, complaints and unsubscribes are added automatically."
      />
      <CardBody className="flex flex-col gap-4">
        <div className="flex flex-wrap items-end gap-6">
          <form
            role="search"
            aria-label="Search the suppression list"
            className="flex flex-1 flex-wrap items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              const q = String(new FormData(e.currentTarget).get("q") ?? "").trim();
              router.push(q ? `/a/${accountId}/settings?q=${encodeURIComponent(q)}#suppressions` : `/a/${accountId}/settings#suppressions`);
            }}
          >
            <Field id="suppression-search" label="Search by address" className="min-w-56 flex-1">
              <Input id="suppression-search" name="q" type="search" defaultValue={query} placeholder="part of an address" />
            </Field>
            <Button type="submit" variant="secondary">
              Search
            </Button>
          </form>
          <form
            className="flex flex-1 flex-wrap items-end gap-2"
            onSubmit={async (e) => {
              e.preventDefault();
              if (await run(() => addSuppressionAction(accountId, email))) setEmail("");
            }}
          >
            <Field id="suppression-add" label="Suppress an address" className="min-w-56 flex-1">
              <Input id="suppression-add" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
            </Field>
            <Button type="submit" disabled={pending}>
              Add
            </Button>
          </form>
        </div>
        {error && <Alert tone="error" title="Not done">{error}</Alert>}
        {suppressions.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">{query ? `No suppressed address contains “${query}”.` : "No suppressed addresses."}</p>
        ) : (
          <Table aria-label="Suppressed addresses">
            <thead>
              <tr>
                <Th>Address</Th>
                <Th>Reason</Th>
                <Th className="hidden md:table-cell">Detail</Th>
                <Th>Since (UTC)</Th>
                <Th className="relative">
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody>
              {suppressions.map((s) => (
                <tr key={s.email} data-testid="suppression-row">
                  <Td className="break-all font-mono text-xs">{s.email}</Td>
                  <Td>
                    <Badge tone={REASON_TONE[s.reason] ?? "neutral"}>{s.reason}</Badge>
                  </Td>
                  <Td className="hidden text-xs md:table-cell">
                    {s.detail}
                    {s.messageId && (
                      <>
                        {" "}
                        <Link href={`/a/${accountId}/messages/${s.messageId}`} className="text-brand-700 underline dark:text-brand-100">
                          message
                        </Link>
                      </>
                    )}
                  </Td>
                  <Td className="whitespace-nowrap">{formatIso(s.createdAt)}</Td>
                  <Td className="text-right">
                    <ConfirmButton
                      label="Remove"
                      title={`Remove ${s.email} from the suppression list?`}
                      confirmLabel="Remove"
                      onConfirm={async () => void (await run(() => removeSuppressionAction(accountId, s.email)))}
                    >
                      <p>Mail to this address will be sent again. If it bounced or complained before, it may harm the sending reputation.</p>
                    </ConfirmButton>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardBody>
    </Card>
  );
}
