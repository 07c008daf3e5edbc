import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { HeadersCard } from "@/components/headers-card";
import { SafeHtmlFrame } from "@/components/safe-html-frame";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { requireAccess } from "@/lib/dashboard/access";
import { canAccess } from "@/lib/auth/roles";
import { readSandbox } from "@/lib/dashboard/sandbox";
import { prepareSandboxHtml, trackingPath } from "../_lib/prepare-html";
import { ReportSpamButton } from "../_components/report-spam-button";

export const metadata: Metadata = { title: "Sandbox message" };
export const dynamic = "force-dynamic";

export default async function SandboxMessagePage({ params }: { params: Promise<{ account: string; id: string }> }) {
  const { account, id: raw } = await params;
  const staff = await requireAccess(account, "sandbox", { returnTo: `/a/${account}/sandbox/${encodeURIComponent(raw)}` });
  const base = staff.base;
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  const message = Number.isSafeInteger(id) ? await readSandbox(staff, id) : undefined;
  if (!message) notFound();
  const inline = message.attachments.filter((a) => a.contentId);
  const prepared = message.html ? await prepareSandboxHtml(message.html, inline) : null;
  const unsubscribePath = message.unsubscribeUrl ? trackingPath(message.unsubscribeUrl, "u") : null;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <Link href={`${base}/sandbox`} className="text-sm text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
            ← Sandbox inbox
          </Link>
          <h1 className="mt-1 break-words text-2xl font-bold tracking-tight" data-testid="sandbox-subject">
            {message.subject || "(no subject)"}
          </h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            To {message.rcptTo.join(", ")} · received {message.receivedAt.replace("T", " ").slice(0, 19)} UTC
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {message.messageId && canAccess(staff.role, "messages") && (
            <Link href={`${base}/messages/${message.messageId}`} className={buttonClass("secondary", "sm")}>
              Its timeline
            </Link>
          )}
          {unsubscribePath && (
            <a href={unsubscribePath} target="_blank" rel="noopener noreferrer" className={buttonClass("secondary", "sm")} data-testid="unsubscribe">
              Unsubscribe
            </a>
          )}
          <ReportSpamButton id={message.id} recipient={message.rcptTo[0] ?? ""} />
        </div>
      </div>

      {/* The open pixel, loaded by this browser from the dashboard's origin: one `opened` per view, as a mail client would. */}
      {prepared?.pixelPath && (
        <img src={prepared.pixelPath} alt="" width={1} height={1} className="absolute size-px opacity-0" data-testid="open-pixel" />
      )}

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-[2fr_1fr]">
        <div className="flex flex-col gap-4">
          {prepared ? (
            <SafeHtmlFrame
              doc={prepared.doc}
              description="Rendered in a sandboxed frame: no scripts, no forms; remote images stay off. Links open in a new tab through their tracked redirect."
              testId="sandbox-html"
              className="h-[32rem]"
            />
          ) : null}
          {message.text !== null && (
            <Card>
              <CardHeader title="Plain text" />
              <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-words p-4 font-mono text-xs" data-testid="sandbox-text">
                {message.text}
              </pre>
            </Card>
          )}
          <Card>
            <details>
              <summary className="cursor-pointer px-4 py-3 text-sm font-semibold">Raw source ({(message.size / 1024).toFixed(1)} KB)</summary>
              <div className="border-t border-slate-200 p-4 dark:border-slate-800">
                <a href={`${base}/sandbox/${message.id}/raw`} className={buttonClass("secondary", "sm")} download={`sandbox-${message.id}.eml`}>
                  Download .eml
                </a>
                <pre className="mt-3 max-h-[32rem] overflow-auto whitespace-pre-wrap break-all font-mono text-xs" data-testid="sandbox-raw">
                  {message.raw.length > 200_000 ? `${message.raw.slice(0, 200_000)}\n… (download the file for the rest)` : message.raw}
                </pre>
              </div>
            </details>
          </Card>
        </div>

        <div className="flex flex-col gap-4">
          {prepared && prepared.links.length > 0 && (
            <Card>
              <CardHeader title="Links" description="Following a tracked link logs `clicked` and redirects to its target." />
              <ul className="flex flex-col gap-2 p-4 text-sm">
                {prepared.links.map((l, i) => (
                  <li key={i} className="flex flex-wrap items-center gap-2">
                    <a href={l.href} target="_blank" rel="noopener noreferrer" className="break-all text-brand-700 underline dark:text-brand-100" data-testid="message-link">
                      {l.text}
                    </a>
                    {l.tracked ? <Badge tone="info">tracked</Badge> : <Badge>not tracked</Badge>}
                  </li>
                ))}
              </ul>
            </Card>
          )}
          <Card>
            <CardHeader title={`Attachments (${message.attachments.length})`} />
            <CardBody>
              {message.attachments.length === 0 ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">None.</p>
              ) : (
                <ul className="flex flex-col gap-2 text-sm" data-testid="sandbox-attachments">
                  {message.attachments.map((a, i) => (
                    <li key={i} className="flex flex-wrap items-center gap-2" data-testid="sandbox-attachment">
                      <a href={`${base}/sandbox/${message.id}/attachments/${i}`} className="break-all font-medium text-brand-700 underline dark:text-brand-100" download>
                        {a.filename || `part ${i + 1}`}
                      </a>
                      <span className="text-xs text-slate-600 dark:text-slate-400">
                        {a.contentType} · {(a.size / 1024).toFixed(1)} KB
                      </span>
                      <Badge tone={a.disposition === "inline" ? "accent" : "neutral"}>{a.disposition}</Badge>
                      {a.contentId && <code className="text-xs">cid:{a.contentId}</code>}
                    </li>
                  ))}
                </ul>
              )}
            </CardBody>
          </Card>
          <HeadersCard title="Headers" headers={message.headers} />
        </div>
      </div>
    </div>
  );
}
