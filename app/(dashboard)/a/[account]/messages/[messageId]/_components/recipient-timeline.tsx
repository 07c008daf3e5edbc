import { EventTypeBadge } from "@/components/events/event-type-badge";
import { formatUtc } from "@/components/format";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import type { EventRecord } from "@/lib/contract/events";
import type { RecipientTimeline } from "../../_lib/timeline";
import { describeTls } from "../../_lib/tls-verdict";

const DOT: Record<EventRecord["Event"], string> = {
  accepted: "bg-slate-400",
  delivered: "bg-emerald-600",
  opened: "bg-sky-600",
  clicked: "bg-violet-600",
  unsubscribed: "bg-amber-600",
  complained: "bg-red-600",
  failed: "bg-red-600",
  rejected: "bg-red-600",
};

function where(ev: EventRecord): string | undefined {
  if (ev.Ip === undefined && !ev.Geolocation) return undefined;
  const g = ev.Geolocation;
  const place = g ? [g.City, g.Region, g.Country].filter(Boolean).join(", ") : "";
  return [ev.Ip ? `IP ${ev.Ip}` : "IP unknown", place || "location unknown"].join(" · ");
}

export function RecipientTimelineCard({ recipient }: { recipient: RecipientTimeline }) {
  return (
    <Card data-testid="recipient-timeline">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-4 py-3 dark:border-slate-800">
        <div className="min-w-0">
          <h3 className="truncate font-semibold">{recipient.email}</h3>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            {recipient.name && <>{recipient.name} · </>}
            {recipient.kind === "other" ? "recipient" : recipient.kind.toUpperCase()}
          </p>
        </div>
        {recipient.status === "pending" || recipient.status === "no events" ? (
          <Badge>{recipient.status}</Badge>
        ) : (
          <EventTypeBadge type={recipient.status} />
        )}
      </div>
      {recipient.events.length === 0 ? (
        <p className="px-4 py-3 text-sm text-slate-600 dark:text-slate-400">No events for this recipient yet.</p>
      ) : (
        <ol className="relative mx-4 my-3 border-l border-slate-200 dark:border-slate-700">
          {recipient.events.map((ev) => {
            const place = where(ev);
            const bad = ev.Event === "failed" || ev.Event === "rejected" || ev.Event === "complained";
            return (
              <li key={ev.EventID} className="mb-3 ml-4 last:mb-0">
                <span aria-hidden className={`absolute -left-1.5 mt-1.5 size-3 rounded-full ring-2 ring-white dark:ring-slate-900 ${DOT[ev.Event]}`} />
                <div className="flex flex-wrap items-center gap-2">
                  <EventTypeBadge type={ev.Event} />
                  <time dateTime={new Date(ev.LoggedAt * 1000).toISOString()} className="font-mono text-xs text-slate-600 dark:text-slate-400">
                    {formatUtc(ev.LoggedAt)} UTC
                  </time>
                </div>
                {ev.Reason && (
                  <p className={`mt-1 text-sm ${bad ? "font-medium text-red-800 dark:text-red-300" : "text-slate-700 dark:text-slate-300"}`}>
                    {bad ? "Diagnostic: " : ""}
                    {ev.Reason}
                  </p>
                )}
                {ev.Tls && <TlsLine tls={ev.Tls} />}
                {ev.Url && <p className="mt-1 break-all text-sm text-slate-700 dark:text-slate-300">Link: {ev.Url}</p>}
                {place && <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{place}</p>}
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}

function TlsLine({ tls }: { tls: NonNullable<EventRecord["Tls"]> }) {
  const { text, warning } = describeTls(tls);
  return (
    <p data-testid="tls-verdict" className={`mt-1 text-xs ${warning ? "font-medium text-amber-800 dark:text-amber-300" : "text-slate-600 dark:text-slate-400"}`}>
      {text}
    </p>
  );
}
