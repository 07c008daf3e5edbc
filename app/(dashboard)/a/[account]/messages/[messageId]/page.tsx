import type { Metadata } from "next";
import Link from "next/link";
import { formatAddress, formatUtc } from "@/components/format";
import { Alert, EmptyState } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { describeApiError, iterateEvents } from "@/lib/dashboard/public-api";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { messageTemplate } from "@/lib/dashboard/templates";
import { repliesToMessage, type ReplySummary } from "@/lib/dashboard/inbound";
import { readSentContent } from "@/lib/dashboard/messages";
import { canAccess } from "@/lib/auth/roles";
import type { EventRecord } from "@/lib/contract/events";
import { prepareSandboxHtml } from "../../sandbox/_lib/prepare-html";
import { linksWithClicks } from "../_lib/link-clicks";
import { buildMessageStory } from "../_lib/timeline";
import { AutoRefresh } from "./_components/auto-refresh";
import { RecipientTimelineCard } from "./_components/recipient-timeline";
import { SentContent, type SentView } from "./_components/sent-content";

export const metadata: Metadata = { title: "Message" };

/** A message has at most a few events per recipient (≤ 25 recipients); this bounds a pathological one. */
const MAX_EVENTS = 2000;

export default async function MessagePage({ params }: { params: Promise<{ account: string; messageId: string }> }) {
  const { account, messageId: raw } = await params;
  let messageId = raw;
  try {
    messageId = decodeURIComponent(raw).trim();
  } catch {
    // already decoded, or a stray %: use it as it is
  }
  const access = await requireAccess(account, "messages", { returnTo: `/a/${account}/messages/${encodeURIComponent(messageId)}` });
  let events: EventRecord[] = [];
  let error: string | undefined;
  let template: { templateId: number; version: number } | undefined;
  let replies: ReplySummary[] = [];
  let sent: Awaited<ReturnType<typeof readSentContent>>;
  let sentError: string | undefined;
  try {
    template = await messageTemplate(access, messageId);
    replies = await repliesToMessage(access, messageId);
    // Its own failure: the timeline is still worth showing without the content.
    sent = await readSentContent(access, messageId).catch((err: unknown) => {
      sentError = describeApiError(err);
      return undefined;
    });
    const client = await apiFor(access, "messages");
    for await (const ev of iterateEvents(client, { MessageID: messageId })) {
      events.push(ev);
      if (events.length >= MAX_EVENTS) break;
    }
  } catch (err) {
    error = describeApiError(err);
    events = [];
  }
  const story = buildMessageStory(events);
  let sentView: SentView | undefined;
  if (sent) {
    const prepared = sent.html === null ? null : await prepareSandboxHtml(sent.html, sent.attachments.filter((a) => a.contentId));
    const id = messageId.toLowerCase();
    sentView = {
      doc: prepared?.doc ?? null,
      text: sent.text,
      headers: sent.headers,
      links: linksWithClicks(prepared?.links ?? [], events),
      attachments: sent.attachments.filter((a) => a.disposition !== "inline" || !a.contentId),
      rawHref: `${access.base}/messages/${encodeURIComponent(id)}/raw`,
      rawName: `message-${id}.eml`,
      rawSize: sent.raw.length,
    };
  }
  const pending = story?.recipients.some((r) => r.status === "pending") ?? false;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="min-w-0">
          <p className="text-sm text-slate-600 dark:text-slate-400">Message</p>
          <h1 className="break-all font-mono text-lg font-semibold" data-testid="message-id">
            {messageId}
          </h1>
        </div>
        <Link href={`${access.base}/events?messageId=${encodeURIComponent(messageId)}`} className={buttonClass("secondary", "sm")}>
          Its events in the explorer
        </Link>
      </div>
      {error && <Alert tone="error" title="The message could not be loaded">{error}</Alert>}
      {!error && !story && (
        <Card>
          <EmptyState title="No events for this MessageID">
            <p>
              Check the id (it is the <code>MessageID</code> that POST /api/v1/email returned). Events older than the account&apos;s retention
              period (30 days by default) are purged.
            </p>
          </EmptyState>
        </Card>
      )}
      {story && (
        <>
          <AutoRefresh active={pending} />
          <Card>
            <CardHeader title={story.headers.Subject || "(no subject)"} description={`First logged ${formatUtc(story.firstAt)} UTC`} />
            <dl className="grid grid-cols-1 gap-x-6 gap-y-2 px-4 py-3 text-sm sm:grid-cols-2">
              {(
                [
                  ["From", story.headers.From.map(formatAddress).join(", ")],
                  ["To", story.headers.To.map(formatAddress).join(", ")],
                  ["Cc", story.headers.Cc.map(formatAddress).join(", ")],
                  ["Bcc", story.headers.Bcc.map(formatAddress).join(", ")],
                  ["Reply-To", story.headers.ReplyTo.map(formatAddress).join(", ")],
                  ["Message-Id", story.headers.MessageId],
                  ["Size", `${story.size.toLocaleString("en-US")} bytes`],
                  ["Transport", story.transport],
                ] as const
              )
                .filter(([, v]) => v)
                .map(([k, v]) => (
                  <div key={k} className="grid grid-cols-[6rem_1fr] gap-2">
                    <dt className="font-medium text-slate-600 dark:text-slate-400">{k}</dt>
                    <dd className="min-w-0 break-words">{v}</dd>
                  </div>
                ))}
              {template && (
                <div className="grid grid-cols-[6rem_1fr] gap-2">
                  <dt className="font-medium text-slate-600 dark:text-slate-400">Template</dt>
                  <dd data-testid="message-template">
                    {canAccess(access.role, "templates") ? (
                      <Link className="underline" href={`${access.base}/templates/${template.templateId}?version=${template.version}`}>
                        #{template.templateId}, version {template.version}
                      </Link>
                    ) : (
                      `#${template.templateId}, version ${template.version}`
                    )}
                  </dd>
                </div>
              )}
              {story.tags.length > 0 && (
                <div className="grid grid-cols-[6rem_1fr] gap-2">
                  <dt className="font-medium text-slate-600 dark:text-slate-400">Tags</dt>
                  <dd className="flex flex-wrap gap-1">
                    {story.tags.map((t) => (
                      <Badge key={t}>{t}</Badge>
                    ))}
                  </dd>
                </div>
              )}
            </dl>
          </Card>
          {replies.length > 0 && (
            <Card data-testid="message-replies">
              <CardHeader title={`Replies (${replies.length})`} description="Received on an inbound route and linked to this message by its In-Reply-To or References header, or by the per-message reply address it was sent to." />
              <ul className="divide-y divide-slate-200 text-sm dark:divide-slate-800">
                {replies.map((r) => (
                  <li key={r.messageId} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-4 py-3" data-testid="message-reply">
                    <span className="font-mono text-xs text-slate-600 dark:text-slate-400">{r.receivedAt.replace("T", " ").slice(0, 19)} UTC</span>
                    <span className="break-all">{r.from}</span>
                    {canAccess(access.role, "inbound") ? (
                      <Link className="min-w-0 break-words font-medium underline" href={`${access.base}/inbound/${r.messageId}`}>
                        {r.subject || "(no subject)"}
                      </Link>
                    ) : (
                      <span className="min-w-0 break-words font-medium">{r.subject || "(no subject)"}</span>
                    )}
                  </li>
                ))}
              </ul>
            </Card>
          )}
          <section aria-labelledby="recipients-heading" className="flex flex-col gap-3">
            <h2 id="recipients-heading" className="text-lg font-semibold">
              Recipients ({story.recipients.length})
            </h2>
            <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
              {story.recipients.map((r) => (
                <RecipientTimelineCard key={r.email} recipient={r} />
              ))}
            </div>
          </section>
          {sentView && <SentContent view={sentView} />}
          {sentError && <Alert tone="error" title="What was sent could not be read">{sentError}</Alert>}
        </>
      )}
    </div>
  );
}
