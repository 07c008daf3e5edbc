"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Alert, Spinner } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, Td, Th } from "@/components/ui/table";
import { useAccountId } from "@/components/shell/use-account";
import { listAttemptsAction } from "../actions";
import { describeLastResponse } from "../_lib/response-class";

/** The webhook's delivery log: every attempt of every notification, newest first (loaded on demand). */
export function AttemptLog({ webhookId }: { webhookId: string }) {
  const accountId = useAccountId();
  const [open, setOpen] = useState(false);
  const query = useQuery({
    queryKey: [accountId, "webhook-attempts", webhookId],
    queryFn: async () => {
      const result = await listAttemptsAction(accountId, webhookId);
      if (!result.ok) throw new Error(result.error);
      return result.data.attempts;
    },
    enabled: open,
    refetchInterval: open ? 5_000 : false,
  });
  return (
    <div className="min-w-0 flex-1">
      <Button variant="ghost" size="sm" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? "▾" : "▸"} Delivery log
      </Button>
      {open && (
        <div className="mt-2" data-testid="attempt-log">
          {query.isPending && <Spinner label="Loading attempts…" />}
          {query.isError && <Alert tone="error" title="The log could not be loaded">{query.error.message}</Alert>}
          {query.data && query.data.length === 0 && <p className="text-sm text-slate-600 dark:text-slate-400">No attempts yet.</p>}
          {query.data && query.data.length > 0 && (
            <Table aria-label={`Delivery attempts of webhook ${webhookId}`}>
              <thead>
                <tr>
                  <Th>Time (UTC)</Th>
                  <Th>Notification</Th>
                  <Th>Try</Th>
                  <Th>Answer</Th>
                  <Th>Took</Th>
                  <Th>Body or error</Th>
                </tr>
              </thead>
              <tbody>
                {query.data.map((a) => {
                  const code = describeLastResponse(String(a.statusCode), a.attemptedAt);
                  return (
                    <tr key={a.id} data-testid="attempt-row">
                      <Td className="whitespace-nowrap font-mono text-xs">{a.attemptedAt.replace("T", " ").slice(0, 19)}</Td>
                      <Td className="font-mono text-xs">{a.notificationId}</Td>
                      <Td>{a.tryNumber}</Td>
                      <Td>
                        <Badge tone={code.tone}>{code.text}</Badge>
                      </Td>
                      <Td className="whitespace-nowrap">{a.durationMs} ms</Td>
                      <Td className="max-w-md">
                        <span className="line-clamp-3 break-all font-mono text-xs" title={a.error ?? a.bodyExcerpt}>
                          {a.error ?? (a.bodyExcerpt || "(empty)")}
                        </span>
                      </Td>
                    </tr>
                  );
                })}
              </tbody>
            </Table>
          )}
        </div>
      )}
    </div>
  );
}
