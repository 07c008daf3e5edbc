import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { formatBytes } from "@/components/format";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { HeadersCard } from "@/components/headers-card";
import { SafeHtmlFrame } from "@/components/safe-html-frame";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Table, Td, Th } from "@/components/ui/table";
import { canAccess } from "@/lib/auth/roles";
import { inboundMessageIdParamSchema } from "@/lib/contract/inbound";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { prepareSandboxHtml } from "../../sandbox/_lib/prepare-html";
import { RetryButton } from "../_components/retry-button";
import { StatusBadge } from "../_components/status-badge";
import { inboundView } from "../_lib/view";

export const metadata: Metadata = { title: "Received message" };
export const dynamic = "force-dynamic";

const time = (iso: string) => iso.replace("T", " ").slice(0, 19);
const VERDICT_TONE: Record<string, "success" | "danger" | "neutral"> = { pass: "success", fail: "danger", softfail: "danger" };

export default async function InboundMessagePage({ params }: { params: Promise<{ account: string; id: string }> }) {
  const { account, id } = await params;
  const access = await requireAccess(account, "inbound", { returnTo: `/a/${account}/inbound/${encodeURIComponent(id)}` });
  // Not an id, unknown, or another account's: the same 404 (the API does not tell them apart either).
  if (!inboundMessageIdParamSchema.safeParse(id).success) notFound();
  const detail = await (await apiFor(access, "inbound")).getInboundMessage(id);
  if (!detail) notFound();
  const view = inboundView(detail);
  const inline = view.Attachments.filter((a) => a.ContentID && a.Content).map((a) => ({ contentId: a.ContentID, contentType: a.ContentType, contentBase64: a.Content }));
  // The safe view of the sandbox inbox: a sandboxed frame without scripts or forms, remote images off (the page's CSP).
  const html = view.HtmlBody ? await prepareSandboxHtml(view.HtmlBody, inline) : null;
  const base = access.base;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <Link href={`${base}/inbound`} className="text-sm text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
            ← Inbound
          </Link>
          <h1 className="mt-1 break-words text-2xl font-bold tracking-tight" data-testid="inbound-subject">
            {view.Subject || "(no subject)"}
          </h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            To {detail.OriginalRecipient} · received {time(detail.ReceivedAt)} UTC · kept until {time(detail.ExpiresAt)} UTC
          </p>
        </div>
        <RetryButton messageId={detail.MessageID} />
      </div>

      {!view.built && (
        <Alert tone="info" title="Not posted yet">
          The JSON is built by the first post to the route&apos;s URL; until then only the envelope is known. The raw MIME is stored.
        </Alert>
      )}

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-[2fr_1fr]">
        <div className="flex flex-col gap-4">
          <Card>
            <CardHeader title="Message" />
            <dl className="grid grid-cols-1 gap-x-6 gap-y-2 px-4 py-3 text-sm sm:grid-cols-2">
              {(
                [
                  ["From", view.FromName ? `${view.FromName} <${view.From}>` : view.From],
                  ["To", view.To],
                  ["Cc", view.Cc],
                  ["Reply-To", view.ReplyTo],
                  ["Date", view.Date],
                  ["MailboxHash", detail.MailboxHash],
                  ["MessageID", detail.MessageID],
                  ["Posted to", detail.WebhookURL],
                ] as const
              )
                .filter(([, v]) => v)
                .map(([k, v]) => (
                  <div key={k} className="grid grid-cols-[7rem_1fr] gap-2">
                    <dt className="font-medium text-slate-600 dark:text-slate-400">{k}</dt>
                    <dd className="min-w-0 break-words">{v}</dd>
                  </div>
                ))}
              {view.RepliedToMessageID && (
                <div className="grid grid-cols-[7rem_1fr] gap-2">
                  <dt className="font-medium text-slate-600 dark:text-slate-400">Replies to</dt>
                  <dd className="min-w-0 break-all" data-testid="replied-to">
                    {canAccess(access.role, "messages") ? (
                      <Link className="font-mono underline" href={`${base}/messages/${view.RepliedToMessageID}`}>
                        {view.RepliedToMessageID}
                      </Link>
                    ) : (
                      <span className="font-mono">{view.RepliedToMessageID}</span>
                    )}
                  </dd>
                </div>
              )}
              {view.Authentication && (
                <div className="grid grid-cols-[7rem_1fr] gap-2">
                  <dt className="font-medium text-slate-600 dark:text-slate-400">Authentication</dt>
                  <dd className="flex flex-wrap gap-1" data-testid="authentication">
                    {(["SPF", "DKIM", "DMARC"] as const).map((k) => (
                      <Badge key={k} tone={VERDICT_TONE[view.Authentication![k]] ?? "neutral"}>
                        {k} {view.Authentication![k] || "none"}
                      </Badge>
                    ))}
                  </dd>
                </div>
              )}
            </dl>
          </Card>
          {html && (
            <SafeHtmlFrame doc={html.doc} description="Rendered in a sandboxed frame: no scripts, no forms; remote images stay off." testId="inbound-html" className="h-[28rem]" />
          )}
          {view.TextBody && (
            <Card>
              <CardHeader title="Plain text" description={view.StrippedTextReply ? "The reply without the quoted text is posted as StrippedTextReply." : undefined} />
              <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-words p-4 font-mono text-xs" data-testid="inbound-text">
                {view.TextBody}
              </pre>
            </Card>
          )}
          <Card>
            <CardHeader title={`Delivery to the URL (${detail.DeliveryAttempts.length})`} actions={<StatusBadge status={detail.Status} attempts={detail.DeliveryAttempts.length} />} />
            {detail.DeliveryAttempts.length === 0 ? (
              <CardBody>
                <p className="text-sm text-slate-600 dark:text-slate-400">No attempt yet.</p>
              </CardBody>
            ) : (
              <Table aria-label="Delivery attempts">
                <thead>
                  <tr>
                    <Th>At (UTC)</Th>
                    <Th>Answer</Th>
                    <Th>Time</Th>
                    <Th>Body or error</Th>
                  </tr>
                </thead>
                <tbody>
                  {detail.DeliveryAttempts.map((a, i) => (
                    <tr key={i} data-testid="inbound-attempt">
                      <Td className="whitespace-nowrap font-mono text-xs">{time(a.At)}</Td>
                      <Td className="font-mono text-xs">{a.ResponseCode || "none"}</Td>
                      <Td className="whitespace-nowrap text-xs">{a.DurationMs} ms</Td>
                      <Td className="break-all font-mono text-xs">{(a.Error ?? a.ResponseBody).slice(0, 300) || "—"}</Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </Card>
        </div>

        <div className="flex flex-col gap-4">
          <Card>
            <CardHeader title={`Attachments (${view.Attachments.length})`} />
            <CardBody>
              {view.Attachments.length === 0 ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">None.</p>
              ) : (
                <ul className="flex flex-col gap-2 text-sm" data-testid="inbound-attachments">
                  {view.Attachments.map((a, i) => (
                    <li key={i} className="flex flex-wrap items-center gap-2" data-testid="inbound-attachment">
                      <span className="break-all font-medium">{a.Name || `part ${i + 1}`}</span>
                      <span className="text-xs text-slate-600 dark:text-slate-400">
                        {a.ContentType} · {formatBytes(a.ContentLength)}
                      </span>
                      {a.ContentID && <code className="text-xs">cid:{a.ContentID}</code>}
                      {a.DownloadURL && <Badge tone="info">by download URL</Badge>}
                    </li>
                  ))}
                </ul>
              )}
            </CardBody>
          </Card>
          <HeadersCard title={`Headers (${view.Headers.length})`} headers={view.Headers.map((h) => ({ name: h.Name, value: h.Value }))} />
        </div>
      </div>
    </div>
  );
}
