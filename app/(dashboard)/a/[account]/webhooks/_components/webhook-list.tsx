"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { Alert, EmptyState } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import type { WebhookRecord } from "@/lib/contract/webhooks";
import { useAccountId } from "@/components/shell/use-account";
import { deleteWebhookAction, enableWebhookAction } from "../actions";
import { describeLastResponse } from "../_lib/response-class";
import { AttemptLog } from "./attempt-log";
import { Deliveries } from "./deliveries";
import { TestNotification } from "./test-notification";

const time = (iso: string) => iso.replace("T", " ").slice(0, 19);

export function WebhookList({ webhooks }: { webhooks: WebhookRecord[] }) {
  const accountId = useAccountId();
  const router = useRouter();
  const [refreshing, startRefresh] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const [autoRefresh, setAutoRefresh] = useState(false);
  const [enabled, setEnabled] = useState<string | null>(null);
  useEffect(() => {
    if (!autoRefresh) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") startRefresh(() => router.refresh());
    }, 5_000);
    return () => clearInterval(timer);
  }, [autoRefresh, router]);
  return (
    <Card>
      <CardHeader
        title={`Registered webhooks (${webhooks.length})`}
        description="As GET /api/v1/webhooks returns them, ordered by id."
        actions={
          <div className="flex items-center gap-3">
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={autoRefresh} onChange={(e) => setAutoRefresh(e.target.checked)} className="size-4 accent-brand-600" />
              Auto-refresh (5 s)
            </label>
            <Button variant="secondary" size="sm" disabled={refreshing} onClick={() => startRefresh(() => router.refresh())}>
              {refreshing ? "Refreshing…" : "Refresh"}
            </Button>
          </div>
        }
      />
      {error && (
        <div className="p-4">
          <Alert tone="error" title="Not done">
            {error}
          </Alert>
        </div>
      )}
      {enabled && (
        <div className="p-4">
          <Alert tone="info" title="Re-enabled">
            {enabled}
          </Alert>
        </div>
      )}
      {webhooks.length === 0 ? (
        <EmptyState title="No webhooks yet">
          <p>Register one above: its URL receives a signed POST for each matching event.</p>
        </EmptyState>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800">
          {webhooks.map((w) => {
            const last = describeLastResponse(w.LastResponseCode, w.LastResponseAt);
            return (
              <li key={w.WebhookID} className="flex flex-col gap-3 px-4 py-4" data-testid="webhook-row" data-webhook-id={w.WebhookID}>
                <div className="flex flex-wrap items-start justify-between gap-3">
                  <div className="min-w-0 flex-1">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-mono text-xs text-slate-500 dark:text-slate-400">#{w.WebhookID}</span>
                      <Badge tone="accent">{w.Event}</Badge>
                      <Badge tone={w.Status === "Enabled" ? "success" : "danger"}>{w.Status}</Badge>
                    </div>
                    <p className="mt-1 break-all font-mono text-sm" data-testid="webhook-url">
                      {w.WebhookURL}
                    </p>
                    <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Created {time(w.CreatedAt)} UTC</p>
                  </div>
                  <div className="flex flex-wrap gap-2">
                    <ConfirmButton
                      label="Delete"
                      title={`Delete webhook #${w.WebhookID}?`}
                      confirmLabel="Delete permanently"
                      testId="delete-webhook"
                      onConfirm={async () => {
                        setError(null);
                        try {
                          const result = await deleteWebhookAction(accountId, w.WebhookID);
                          if (!result.ok) setError(result.error);
                          router.refresh();
                        } catch {
                          setError("The request failed. Check your connection and sign-in, then try again.");
                        }
                      }}
                    >
                      <p>
                        <strong>This is irreversible.</strong> {w.WebhookURL} receives no further notifications, pending retries are cancelled,
                        and the webhook and its delivery log cannot be recovered. To receive them again, register a new webhook.
                      </p>
                    </ConfirmButton>
                  </div>
                </div>
                {w.Status === "Disabled" && (
                  <div data-testid="webhook-disabled">
                    <Alert tone="warning" title={`Disabled${w.DisabledAt ? ` since ${time(w.DisabledAt)} UTC` : ""}`}>
                      <p>
                        {w.DisabledReason || "The endpoint kept failing."} Its notifications are kept, not sent, for the account&apos;s retention period.
                        Once the endpoint answers again, re-enable it: the kept notifications are then sent.
                      </p>
                      <Button
                        className="mt-2"
                        size="sm"
                        data-testid="enable-webhook"
                        onClick={async () => {
                          setError(null);
                          const result = await enableWebhookAction(accountId, w.WebhookID);
                          if (!result.ok) setError(result.error);
                          else setEnabled(`Webhook #${w.WebhookID} is enabled again; ${result.data.Queued} kept notifications queued.`);
                          router.refresh();
                        }}
                      >
                        Re-enable
                      </Button>
                    </Alert>
                  </div>
                )}
                <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4">
                  <div>
                    <dt className="text-xs text-slate-600 dark:text-slate-400">Last response</dt>
                    <dd data-testid="webhook-last-code">
                      <Badge tone={last.tone}>{last.text}</Badge>
                    </dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-600 dark:text-slate-400">Try counter</dt>
                    <dd data-testid="webhook-try-counter" className="font-mono">
                      {w.LastResponseTryCounter}
                    </dd>
                  </div>
                  <div className="col-span-2">
                    <dt className="text-xs text-slate-600 dark:text-slate-400">Last response at (UTC)</dt>
                    <dd data-testid="webhook-last-at">{last.neverCalled ? "—" : time(w.LastResponseAt)}</dd>
                  </div>
                </dl>
                {!last.neverCalled && (
                  <details className="text-sm">
                    <summary className="cursor-pointer text-brand-700 dark:text-brand-100">Last response body ({w.LastResponseBody.length} characters)</summary>
                    <pre className="mt-2 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-800" data-testid="webhook-last-body">
                      {w.LastResponseBody || "(empty)"}
                    </pre>
                  </details>
                )}
                <Deliveries webhookId={w.WebhookID} disabled={w.Status === "Disabled"} />
                <div className="flex flex-col gap-3 md:flex-row">
                  <AttemptLog webhookId={w.WebhookID} />
                  <TestNotification webhookId={w.WebhookID} />
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
