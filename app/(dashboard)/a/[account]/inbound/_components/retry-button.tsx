"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { useAccountId } from "@/components/shell/use-account";
import { retryInboundAction } from "../actions";

/** POST /inbound/messages/{MessageID}/retry: the message is posted again now, with the same webhook-id. */
export function RetryButton({ messageId }: { messageId: string }) {
  const accountId = useAccountId();
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  return (
    <div className="flex flex-col items-end gap-2">
      <Button
        variant="secondary"
        size="sm"
        disabled={pending}
        data-testid="retry-inbound"
        onClick={async () => {
          setPending(true);
          setResult(null);
          try {
            const r = await retryInboundAction(accountId, messageId);
            setResult(r.ok ? { ok: true, text: "Queued: it is posted again within a few seconds." } : { ok: false, text: r.error });
          } catch {
            setResult({ ok: false, text: "The request failed. Check your connection and sign-in, then try again." });
          } finally {
            setPending(false);
          }
          router.refresh();
        }}
      >
        {pending ? "Queueing…" : "Post again"}
      </Button>
      {result && (
        <div data-testid="retry-result">
          <Alert tone={result.ok ? "info" : "error"} title={result.ok ? "Queued" : "Not queued"}>
            {result.text}
          </Alert>
        </div>
      )}
    </div>
  );
}
