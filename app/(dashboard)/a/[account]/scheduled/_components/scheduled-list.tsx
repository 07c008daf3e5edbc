"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Alert, EmptyState } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { useAccountId } from "@/components/shell/use-account";
import type { ScheduledList } from "@/lib/contract/scheduled";
import { cancelScheduledAction } from "../actions";

const utc = (seconds: number) => new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);

export function ScheduledListView({ messages }: { messages: ScheduledList["Messages"] }) {
  const accountId = useAccountId();
  const router = useRouter();
  const [refreshing, startRefresh] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <Card>
      <CardHeader
        title={`Scheduled messages (${messages.length})`}
        description="Times are UTC. A message leaves this list when its time comes (within about a second) or when it is cancelled."
        actions={
          <Button variant="secondary" size="sm" disabled={refreshing} onClick={() => startRefresh(() => router.refresh())}>
            {refreshing ? "Refreshing…" : "Refresh"}
          </Button>
        }
      />
      {error && (
        <div className="p-4">
          <Alert tone="error" title="Not cancelled">
            {error}
          </Alert>
        </div>
      )}
      {messages.length === 0 ? (
        <EmptyState title="Nothing scheduled">
          <p>
            Send with <code>SendAt</code> (Unix seconds or ISO 8601, up to 30 days ahead) to schedule a message.
          </p>
        </EmptyState>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800">
          {messages.map((m) => (
            <li key={m.MessageID} className="flex flex-wrap items-start justify-between gap-3 px-4 py-4" data-testid="scheduled-row" data-message-id={m.MessageID}>
              <div className="min-w-0 flex-1">
                <p className="font-medium" data-testid="scheduled-time">
                  {utc(m.SendAt)} UTC
                </p>
                <p className="mt-1 truncate text-sm">{m.Subject}</p>
                <p className="mt-1 truncate text-xs text-slate-600 dark:text-slate-400">
                  To {m.Recipients.join(", ")} · accepted {utc(m.AcceptedAt)} UTC · <span className="font-mono">{m.MessageID}</span>
                </p>
              </div>
              <ConfirmButton
                label="Cancel"
                title="Cancel this scheduled message?"
                confirmLabel="Cancel the message"
                testId="cancel-scheduled"
                onConfirm={async () => {
                  setError(null);
                  try {
                    const result = await cancelScheduledAction(accountId, m.MessageID);
                    if (!result.ok) setError(result.error);
                  } catch {
                    setError("The dashboard could not reach the server");
                  }
                  router.refresh();
                }}
              >
                <p>Each recipient gets its final failed event (&ldquo;cancelled before sending&rdquo;), and webhooks are notified. This cannot be undone.</p>
              </ConfirmButton>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
