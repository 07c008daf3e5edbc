import { HeadersCard } from "@/components/headers-card";
import { SafeHtmlFrame } from "@/components/safe-html-frame";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import type { LinkClicks } from "../../_lib/link-clicks";

/** The text part shown in full up to this many characters; the download has the rest. */
const TEXT_SHOWN_MAX = 200_000;

export interface SentView {
  doc: string | null;
  text: string | null;
  headers: { name: string; value: string }[];
  links: LinkClicks[];
  attachments: { filename: string; contentType: string; size: number }[];
  rawHref: string;
  rawName: string;
  rawSize: number;
}

/** What was sent (docs/adr/0518): the HTML in the sandboxed frame, the text part, links with their clicks, the parts, the headers and the raw download. */
export function SentContent({ view }: { view: SentView }) {
  return (
    <section aria-labelledby="sent-heading" className="flex flex-col gap-3" data-testid="sent-content">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h2 id="sent-heading" className="text-lg font-semibold">
          What was sent
        </h2>
        <a href={view.rawHref} download={view.rawName} className={buttonClass("secondary", "sm")} data-testid="sent-raw">
          Download .eml ({(view.rawSize / 1024).toFixed(1)} KB)
        </a>
      </div>
      <div className="grid grid-cols-1 gap-4 xl:grid-cols-[2fr_1fr]">
        <div className="flex min-w-0 flex-col gap-4">
          {view.doc !== null && (
            <SafeHtmlFrame
              doc={view.doc}
              description="As accepted, before each recipient's tracking: rendered in a sandboxed frame, no scripts, no forms; remote images stay off."
              testId="sent-html"
              className="h-[32rem]"
            />
          )}
          {view.text !== null && (
            <Card>
              <CardHeader title="Plain text" />
              <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-words p-4 font-mono text-xs" data-testid="sent-text">
                {view.text.length > TEXT_SHOWN_MAX ? `${view.text.slice(0, TEXT_SHOWN_MAX)}\n… (download the message for the rest)` : view.text}
              </pre>
            </Card>
          )}
          {view.doc === null && view.text === null && (
            <Card>
              <CardBody>
                <p className="text-sm text-slate-600 dark:text-slate-400">The message has no HTML or text part.</p>
              </CardBody>
            </Card>
          )}
          <HeadersCard title="Headers" headers={view.headers} />
        </div>
        <div className="flex min-w-0 flex-col gap-4">
          <Card>
            <CardHeader title={`Links (${view.links.length})`} description="Each link of the HTML and how often its recipients clicked it (tracked copies only)." />
            <CardBody>
              {view.links.length === 0 ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">None.</p>
              ) : (
                <ul className="flex flex-col gap-2 text-sm" data-testid="sent-links">
                  {view.links.map((l, i) => (
                    <li key={i} className="flex flex-wrap items-center gap-2" data-testid="sent-link">
                      <a href={l.href} target="_blank" rel="noopener noreferrer" className="min-w-0 break-all text-brand-700 underline dark:text-brand-100">
                        {l.text || l.href}
                      </a>
                      <Badge tone={l.clicks > 0 ? "info" : undefined}>{l.clicks === 1 ? "1 click" : `${l.clicks} clicks`}</Badge>
                    </li>
                  ))}
                </ul>
              )}
            </CardBody>
          </Card>
          <Card>
            <CardHeader title={`Attachments (${view.attachments.length})`} />
            <CardBody>
              {view.attachments.length === 0 ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">None.</p>
              ) : (
                <ul className="flex flex-col gap-2 text-sm">
                  {view.attachments.map((a, i) => (
                    <li key={i} className="flex flex-wrap items-center gap-2">
                      <span className="break-all font-medium">{a.filename || "(no name)"}</span>
                      <span className="text-slate-600 dark:text-slate-400">
                        {a.contentType}, {(a.size / 1024).toFixed(1)} KB
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </CardBody>
          </Card>
        </div>
      </div>
    </section>
  );
}
