import Link from "next/link";
import { EventTypeBadge } from "@/components/events/event-type-badge";
import { formatAddress, formatUtc } from "@/components/format";
import { useAccountBase } from "@/components/shell/use-account";
import type { EventRecord } from "@/lib/contract/events";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[8rem_1fr] gap-2 border-b border-slate-100 py-1.5 text-sm dark:border-slate-800">
      <dt className="font-medium text-slate-600 dark:text-slate-400">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

/** The whole record of one event, readable, then its JSON. */
export function EventDetail({ event, canOpenMessage }: { event: EventRecord; canOpenMessage: boolean }) {
  const base = useAccountBase();
  const h = event.Message.Headers;
  const geo = event.Geolocation;
  const place = geo ? [geo.City, geo.Region, geo.Country].filter(Boolean).join(", ") : "";
  return (
    <div className="flex flex-col gap-4">
      <dl>
        <Row label="Event">
          <EventTypeBadge type={event.Event} /> <span className="ml-2 text-xs text-slate-600 dark:text-slate-400">{event.LogLevel}</span>
        </Row>
        <Row label="Logged at">{formatUtc(event.LoggedAt)} UTC</Row>
        <Row label="Recipient">{event.Recipient || "—"}</Row>
        <Row label="Reason">{event.Reason || "—"}</Row>
        <Row label="MessageID">
          {canOpenMessage ? (
            <Link className="font-mono text-xs text-brand-700 underline dark:text-brand-100" href={`${base}/messages/${encodeURIComponent(h.MessageId)}`}>
              {h.MessageId}
            </Link>
          ) : (
            <span className="font-mono text-xs">{h.MessageId}</span>
          )}
        </Row>
        <Row label="Subject">{h.Subject}</Row>
        <Row label="From">{h.From.map(formatAddress).join(", ")}</Row>
        <Row label="To">{h.To.map(formatAddress).join(", ") || "—"}</Row>
        {h.Cc.length > 0 && <Row label="Cc">{h.Cc.map(formatAddress).join(", ")}</Row>}
        {h.Bcc.length > 0 && <Row label="Bcc">{h.Bcc.map(formatAddress).join(", ")}</Row>}
        {event.Ip !== undefined && <Row label="IP">{event.Ip || "unknown"}</Row>}
        {geo && <Row label="Location">{place || "unknown"}</Row>}
        {event.Url && <Row label="URL">{event.Url}</Row>}
        <Row label="Size">{event.Message.Size.toLocaleString("en-US")} bytes</Row>
        <Row label="Transport">{event.Message.Transport}</Row>
        {event.Tags.length > 0 && <Row label="Tags">{event.Tags.join(", ")}</Row>}
        <Row label="EventID">
          <span className="font-mono text-xs">{event.EventID}</span>
        </Row>
      </dl>
      <div>
        <h3 className="mb-1 text-sm font-semibold">JSON</h3>
        <pre className="max-h-96 overflow-auto rounded-md bg-slate-100 p-3 text-xs dark:bg-slate-950" data-testid="event-json">
          {JSON.stringify(event, null, 2)}
        </pre>
      </div>
    </div>
  );
}
