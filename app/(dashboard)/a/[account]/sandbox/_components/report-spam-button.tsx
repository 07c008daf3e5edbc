"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { useAccountId } from "@/components/shell/use-account";
import { reportSpamAction } from "../actions";

/** Sends a real ARF complaint for the captured copy (logs `complained`, suppresses the recipient). */
export function ReportSpamButton({ id, recipient }: { id: number; recipient: string }) {
  const accountId = useAccountId();
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  return (
    <div className="flex flex-col items-end gap-2">
      <ConfirmButton
        label="Report as spam"
        title="Report this message as spam?"
        confirmLabel="Report as spam"
        testId="report-spam"
        onConfirm={async () => {
          try {
            const r = await reportSpamAction(accountId, id);
            setResult(
              r.ok
                ? { ok: true, text: `Complaint sent as ${recipient}'s mailbox provider would: a complained event follows and the address is suppressed.` }
                : { ok: false, text: r.error },
            );
          } catch {
            setResult({ ok: false, text: "The request failed. Check your connection and sign-in, then try again." });
          }
        }}
      >
        <p>
          An ARF feedback report about this copy goes to the service&apos;s inbound SMTP server, exactly like a mailbox provider&apos;s feedback loop.
          The service logs <code>complained</code> for {recipient || "the recipient"} and adds the address to the suppression list.
        </p>
      </ConfirmButton>
      {result && (
        <div className="max-w-md" data-testid="report-spam-result">
          <Alert tone={result.ok ? "info" : "error"} title={result.ok ? "Reported" : "Not reported"}>
            {result.text}
          </Alert>
        </div>
      )}
    </div>
  );
}
