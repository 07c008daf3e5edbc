import type { EventRecord, EventType, MessageHeaders } from "@/lib/contract/events";

/**
 * One message's story, from its events: the headers, every recipient (from
 * the headers and from the events) and per recipient the events oldest
 * first, with the stage it reached.
 */

export interface RecipientTimeline {
  email: string;
  kind: "to" | "cc" | "bcc" | "other";
  name: string;
  events: EventRecord[];
  /** The furthest outcome: delivered, opened, clicked, failed, ... or "pending" when only accepted. */
  status: EventType | "pending" | "no events";
}

export interface MessageStory {
  headers: MessageHeaders;
  size: number;
  transport: string;
  tags: string[];
  firstAt: number;
  recipients: RecipientTimeline[];
  eventCount: number;
}

const RANK: Record<EventType, number> = {
  accepted: 0,
  delivered: 2,
  opened: 3,
  clicked: 4,
  unsubscribed: 5,
  failed: 6,
  rejected: 6,
  complained: 7,
};

/** `events` as GET /events returns them (newest first). */
export function buildMessageStory(events: readonly EventRecord[]): MessageStory | undefined {
  if (events.length === 0) return undefined;
  const oldestFirst = [...events].reverse();
  const first = oldestFirst[0]!;
  const headers = first.Message.Headers;
  const byEmail = new Map<string, RecipientTimeline>();
  const add = (email: string, name: string, kind: RecipientTimeline["kind"]) => {
    const key = email.toLowerCase();
    if (!byEmail.has(key)) byEmail.set(key, { email, name, kind, events: [], status: "no events" });
  };
  for (const [name, email] of headers.To) add(email, name, "to");
  for (const [name, email] of headers.Cc) add(email, name, "cc");
  for (const [name, email] of headers.Bcc) add(email, name, "bcc");
  for (const ev of oldestFirst) {
    if (!ev.Recipient) continue;
    add(ev.Recipient, "", "other");
    byEmail.get(ev.Recipient.toLowerCase())!.events.push(ev);
  }
  for (const r of byEmail.values()) {
    let best: EventType | undefined;
    for (const ev of r.events) if (best === undefined || RANK[ev.Event] >= RANK[best]) best = ev.Event;
    r.status = best === undefined ? "no events" : best === "accepted" ? "pending" : best;
  }
  return {
    headers,
    size: first.Message.Size,
    transport: first.Message.Transport,
    tags: first.Tags,
    firstAt: first.LoggedAt,
    recipients: [...byEmail.values()],
    eventCount: events.length,
  };
}
