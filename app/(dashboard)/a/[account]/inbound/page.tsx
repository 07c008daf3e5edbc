import type { Metadata } from "next";
import Link from "next/link";
import { Alert, EmptyState } from "@/components/ui/alert";
import { buttonClass } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { Table, Td, Th } from "@/components/ui/table";
import { canAccess } from "@/lib/auth/roles";
import { INBOUND_STATUSES, type InboundStatusName, type ListInboundMessagesResponse, type ListInboundRoutesResponse } from "@/lib/contract/inbound";
import { describeApiError } from "@/lib/dashboard/public-api";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { RouteList } from "./_components/route-list";
import { StatusBadge } from "./_components/status-badge";

export const metadata: Metadata = { title: "Inbound" };
export const dynamic = "force-dynamic";

const PAGE_SIZE = 20;
const time = (iso: string) => iso.replace("T", " ").slice(0, 19);

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function InboundPage({ params, searchParams }: { params: Promise<{ account: string }>; searchParams: Search }) {
  const { account } = await params;
  const search = await searchParams;
  const access = await requireAccess(account, "inbound", { returnTo: `/a/${account}/inbound` });
  const from = typeof search.from === "string" && /^\d{1,6}$/.test(search.from) ? Number(search.from) : 0;
  const status = INBOUND_STATUSES.find((s) => s === search.status) as InboundStatusName | undefined;
  let routes: ListInboundRoutesResponse | undefined;
  let messages: ListInboundMessagesResponse | undefined;
  let error: string | undefined;
  try {
    const api = await apiFor(access, "inbound");
    [routes, messages] = await Promise.all([api.listInboundRoutes(), api.listInboundMessages({ StartFrom: from, RetrieveCount: PAGE_SIZE, Status: status })]);
  } catch (err) {
    error = describeApiError(err);
  }
  const pageHref = (start: number, s = status) => {
    const q = new URLSearchParams();
    if (start > 0) q.set("from", String(start));
    if (s) q.set("status", s);
    const qs = q.toString();
    return `${access.base}/inbound${qs ? `?${qs}` : ""}`;
  };
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Inbound</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Mail received on the inbound SMTP server for the account&apos;s routes, stored before it is accepted and then posted, signed, to the
          route&apos;s URL (docs: <code>/api/v1/inbound</code>). A reply to one of the account&apos;s messages links to it.
        </p>
      </div>
      {error && <Alert tone="error" title="Inbound mail could not be loaded">{error}</Alert>}
      {routes && <RouteList routes={routes.Routes} canManage={canAccess(access.role, "webhooks")} />}
      {messages && (
        <Card>
          <CardHeader
            title={`Received messages (${messages.TotalRecords})`}
            description="Newest first; times are UTC. Each accepted recipient is one message."
            actions={
              <nav aria-label="Status filter" className="flex flex-wrap gap-1">
                {[undefined, ...INBOUND_STATUSES].map((s) => (
                  <Link
                    key={s ?? "all"}
                    href={pageHref(0, s)}
                    aria-current={s === status ? "page" : undefined}
                    className={buttonClass(s === status ? "primary" : "secondary", "sm")}
                  >
                    {s ?? "all"}
                  </Link>
                ))}
              </nav>
            }
          />
          {messages.InboundMessages.length === 0 ? (
            <EmptyState title={status ? `No ${status} messages` : "Nothing received yet"}>
              <p>Add a route above, then send mail to its address on the inbound SMTP port.</p>
            </EmptyState>
          ) : (
            <Table aria-label="Received messages">
              <thead>
                <tr>
                  <Th>Received</Th>
                  <Th>From</Th>
                  <Th>To</Th>
                  <Th>Subject</Th>
                  <Th>Status</Th>
                </tr>
              </thead>
              <tbody>
                {messages.InboundMessages.map((m) => (
                  <tr key={m.MessageID} data-testid="inbound-row" data-message-id={m.MessageID}>
                    <Td className="whitespace-nowrap font-mono text-xs">{time(m.ReceivedAt)}</Td>
                    <Td className="break-all text-sm">{m.From || "—"}</Td>
                    <Td className="break-all text-sm">{m.OriginalRecipient}</Td>
                    <Td className="text-sm">
                      <Link href={`${access.base}/inbound/${m.MessageID}`} className="font-medium text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
                        {m.Subject || "(no subject yet)"}
                      </Link>
                      {m.RepliedToMessageID && <span className="ml-2 text-xs text-slate-600 dark:text-slate-400">reply</span>}
                    </Td>
                    <Td>
                      <StatusBadge status={m.Status} attempts={m.Attempts} />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
          {messages.TotalRecords > PAGE_SIZE && (
            <nav aria-label="Pages" className="flex items-center justify-between gap-2 border-t border-slate-200 px-4 py-3 text-sm dark:border-slate-800">
              <span>
                {from + 1}–{Math.min(from + PAGE_SIZE, messages.TotalRecords)} of {messages.TotalRecords}
              </span>
              <span className="flex gap-2">
                {from > 0 && (
                  <Link href={pageHref(Math.max(0, from - PAGE_SIZE))} className={buttonClass("secondary", "sm")}>
                    Newer
                  </Link>
                )}
                {from + PAGE_SIZE < messages.TotalRecords && (
                  <Link href={pageHref(from + PAGE_SIZE)} className={buttonClass("secondary", "sm")}>
                    Older
                  </Link>
                )}
              </span>
            </nav>
          )}
        </Card>
      )}
    </div>
  );
}
