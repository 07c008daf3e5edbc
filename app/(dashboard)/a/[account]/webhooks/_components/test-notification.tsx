"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { useAccountId } from "@/components/shell/use-account";
import { sendTestAction, type TestResult } from "../actions";
import { describeLastResponse } from "../_lib/response-class";

/** Posts a signed sample payload to the webhook and shows the receiver's answer; logs nothing. */
export function TestNotification({ webhookId }: { webhookId: string }) {
  const accountId = useAccountId();
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<TestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="md:w-96">
      <Button
        variant="secondary"
        size="sm"
        disabled={pending}
        onClick={async () => {
          setPending(true);
          setError(null);
          try {
            const r = await sendTestAction(accountId, webhookId);
            if (r.ok) setResult(r.data.result);
            else setError(r.error);
          } catch {
            setError("The request failed. Check your connection and sign-in, then try again.");
          } finally {
            setPending(false);
          }
        }}
      >
        {pending ? "Sending…" : "Send test notification"}
      </Button>
      {error && (
        <div className="mt-2">
          <Alert tone="error" title="Not sent">
            {error}
          </Alert>
        </div>
      )}
      {result && (
        <div className="mt-2 rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700" data-testid="test-result" role="status">
          <p className="flex flex-wrap items-center gap-2">
            Receiver answered{" "}
            <Badge tone={describeLastResponse(String(result.statusCode), "now").tone}>
              <span data-testid="test-status">{result.statusCode || "no answer"}</span>
            </Badge>
            in {result.durationMs} ms
          </p>
          {result.error && <p className="mt-1 text-red-700 dark:text-red-300">{result.error}</p>}
          <pre className="mt-2 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-800">
            {result.body || "(empty body)"}
          </pre>
          <details className="mt-2">
            <summary className="cursor-pointer text-xs text-slate-600 dark:text-slate-400">Sample EventData sent (webhook-id {result.webhookId})</summary>
            <pre className="mt-1 max-h-40 overflow-auto rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-800">{result.eventData}</pre>
          </details>
          <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">A test writes nothing: no event, and the webhook&apos;s last response stays as it was.</p>
        </div>
      )}
    </div>
  );
}
