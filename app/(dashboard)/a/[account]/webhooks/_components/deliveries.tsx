"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert, Spinner } from "@/components/ui/alert";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { useAccountId } from "@/components/shell/use-account";
import type { DeliveryRecord, DeliveryStatus } from "@/lib/contract/webhook-deliveries";
import { getDeliveryAction, listDeliveriesAction, replayFailedAction, retryDeliveryAction } from "../actions";
import { describeLastResponse } from "../_lib/response-class";

const STATUS_TONE: Record<DeliveryStatus, BadgeTone> = { pending: "info", succeeded: "success", failed: "danger" };
const time = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 19) : "—");
/** A yyyy-mm-dd of the date input as Unix seconds (UTC), the start or the end of that day. */
function daySeconds(day: string, end: boolean): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000) + (end ? 86_399 : 0);
}

/**
 * A webhook's deliveries (docs/contract.md §16) with filters, each one's
 * attempts on demand, retry of one and replay of the failed ones in the
 * chosen range. Everything goes through the public API as the account.
 */
export function Deliveries({ webhookId, disabled }: { webhookId: string; disabled: boolean }) {
  const accountId = useAccountId();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [page, setPage] = useState(0);
  const [notice, setNotice] = useState<{ tone: "info" | "error"; text: string } | null>(null);
  const range = { startDate: daySeconds(from, false), endDate: daySeconds(to, true) };
  const key = [accountId, "webhook-deliveries", webhookId, status, from, to, page];
  const query = useQuery({
    queryKey: key,
    queryFn: async () => {
      const result = await listDeliveriesAction(accountId, { webhookId, status: status || undefined, ...range, startFrom: page * 20 });
      if (!result.ok) throw new Error(result.error);
      return result.data;
    },
    enabled: open,
    refetchInterval: open ? 5_000 : false,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: [accountId, "webhook-deliveries", webhookId] });

  async function replay() {
    setNotice(null);
    const result = await replayFailedAction(accountId, { webhookId, ...range });
    setNotice(result.ok ? { tone: "info", text: `${result.data.Queued} failed deliveries queued again.` } : { tone: "error", text: result.error });
    await refresh();
  }

  return (
    <div className="min-w-0" data-testid="deliveries">
      <Button variant="ghost" size="sm" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? "▾" : "▸"} Deliveries
      </Button>
      {open && (
        <div className="mt-2 flex flex-col gap-3">
          <div className="flex flex-wrap items-end gap-3 text-sm">
            <label className="flex flex-col gap-1">
              Status
              <Select aria-label="Delivery status" value={status} onChange={(e) => { setStatus(e.target.value as DeliveryStatus | ""); setPage(0); }}>
                <option value="">All</option>
                <option value="pending">Pending</option>
                <option value="succeeded">Succeeded</option>
                <option value="failed">Failed</option>
              </Select>
            </label>
            <label className="flex flex-col gap-1">
              From (UTC)
              <Input type="date" aria-label="From date" value={from} onChange={(e) => { setFrom(e.target.value); setPage(0); }} />
            </label>
            <label className="flex flex-col gap-1">
              To (UTC)
              <Input type="date" aria-label="To date" value={to} onChange={(e) => { setTo(e.target.value); setPage(0); }} />
            </label>
            <Button variant="secondary" size="sm" disabled={disabled} title={disabled ? "Enable the webhook first" : undefined} onClick={replay} data-testid="replay-failed">
              Replay failed deliveries{from || to ? " in this range" : ""}
            </Button>
          </div>
          {notice && <Alert tone={notice.tone} title={notice.tone === "error" ? "Not replayed" : "Replay queued"}>{notice.text}</Alert>}
          {query.isPending && <Spinner label="Loading deliveries…" />}
          {query.isError && <Alert tone="error" title="The deliveries could not be loaded">{query.error.message}</Alert>}
          {query.data && query.data.TotalRecords === 0 && <p className="text-sm text-slate-600 dark:text-slate-400">No deliveries match.</p>}
          {query.data && query.data.Deliveries.length > 0 && (
            <>
              <Table aria-label={`Deliveries of webhook ${webhookId}`}>
                <thead>
                  <tr>
                    <Th>Created (UTC)</Th>
                    <Th>Delivery</Th>
                    <Th>Event</Th>
                    <Th>Status</Th>
                    <Th>Attempts</Th>
                    <Th>Last answer</Th>
                    <Th>Next attempt (UTC)</Th>
                    <Th>Actions</Th>
                  </tr>
                </thead>
                <tbody>
                  {query.data.Deliveries.map((d) => (
                    <DeliveryRow key={d.DeliveryID} webhookId={webhookId} delivery={d} disabled={disabled} onChange={refresh} />
                  ))}
                </tbody>
              </Table>
              <div className="flex items-center gap-3 text-sm">
                <span>
                  {page * 20 + 1}–{page * 20 + query.data.Deliveries.length} of {query.data.TotalRecords}
                </span>
                <Button variant="ghost" size="sm" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
                  Newer
                </Button>
                <Button variant="ghost" size="sm" disabled={(page + 1) * 20 >= query.data.TotalRecords} onClick={() => setPage((p) => p + 1)}>
                  Older
                </Button>
              </div>
            </>
          )}
        </div>
      )}
    </div>
  );
}

function DeliveryRow({ webhookId, delivery: d, disabled, onChange }: { webhookId: string; delivery: DeliveryRecord; disabled: boolean; onChange: () => Promise<void> }) {
  const accountId = useAccountId();
  const [showAttempts, setShowAttempts] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const detail = useQuery({
    queryKey: [accountId, "webhook-delivery", webhookId, d.DeliveryID, d.Attempts],
    queryFn: async () => {
      const result = await getDeliveryAction(accountId, { webhookId, deliveryId: d.DeliveryID });
      if (!result.ok) throw new Error(result.error);
      return result.data;
    },
    enabled: showAttempts,
  });
  const last = describeLastResponse(String(d.LastResponseCode), d.Attempts > 0 ? d.CreatedAt : "1899-11-30T00:00:00.000Z");
  return (
    <>
      <tr data-testid="delivery-row" data-delivery-id={d.DeliveryID}>
        <Td className="whitespace-nowrap font-mono text-xs">{time(d.CreatedAt)}</Td>
        <Td className="font-mono text-xs">{d.DeliveryID}</Td>
        <Td>{d.Event}</Td>
        <Td>
          <Badge tone={STATUS_TONE[d.Status]}>{d.Status}</Badge>
        </Td>
        <Td>{d.Attempts}</Td>
        <Td>{d.Attempts > 0 ? <Badge tone={last.tone}>{last.text}</Badge> : "—"}</Td>
        <Td className="whitespace-nowrap font-mono text-xs">{time(d.NextAttemptAt)}</Td>
        <Td className="whitespace-nowrap">
          <Button variant="ghost" size="sm" aria-expanded={showAttempts} onClick={() => setShowAttempts((s) => !s)}>
            Attempts
          </Button>
          {d.Status !== "pending" && (
            <Button
              variant="ghost"
              size="sm"
              disabled={disabled}
              data-testid="retry-delivery"
              onClick={async () => {
                const result = await retryDeliveryAction(accountId, { webhookId, deliveryId: d.DeliveryID });
                setMessage(result.ok ? (result.data.Queued ? "Queued" : "Already pending") : result.error);
                await onChange();
              }}
            >
              Retry
            </Button>
          )}
          {message && <span className="ml-2 text-xs text-slate-600 dark:text-slate-400">{message}</span>}
        </Td>
      </tr>
      {showAttempts && (
        <tr>
          <Td colSpan={8}>
            {detail.isPending && <Spinner label="Loading attempts…" />}
            {detail.isError && <Alert tone="error" title="The attempts could not be loaded">{detail.error.message}</Alert>}
            {detail.data && detail.data.AttemptLog.length === 0 && <p className="text-sm">No attempt yet.</p>}
            {detail.data && detail.data.AttemptLog.length > 0 && (
              <ol className="flex flex-col gap-1 text-xs" data-testid="delivery-attempts">
                {detail.data.AttemptLog.map((a, i) => (
                  <li key={i} className="font-mono">
                    {time(a.AttemptedAt)} · {a.ResponseCode || "no answer"} · {a.DurationMs} ms ·{" "}
                    {a.Error && <span className="break-all">{a.Error} · </span>}
                    <span className="break-all">{a.ResponseBody ? a.ResponseBody.slice(0, 300) : "(empty body)"}</span>
                  </li>
                ))}
              </ol>
            )}
          </Td>
        </tr>
      )}
    </>
  );
}
