import type { EventRecord, EventsResponse, EventType, MessageHeaders } from "../../contract/events";
import { DEFAULT_RETRIEVE_COUNT } from "../../contract/events";
import { countEventRows, countEventsSummarised, selectEventPage, selectMessagesEventPage, type EventRowFilter, type ListedEventRow } from "../../storage/event-rows";
import { selectMessagesBySubject } from "../../storage/message-search-rows";
import { isUuid } from "../accounts/accounts";
import { FAR_FUTURE, type EventReads } from "./event-counts";
import { MAX_SUBJECT_MATCHES, subjectEventsFrom, subjectPattern } from "./event-search";

/**
 * GET /events (docs/contract.md §7): the account's events, newest first (LoggedAt
 * descending, then insertion order descending), with the total count of all
 * matches. Each filter combination is served by an index of 0001_core.sql:
 * (account, logged_at, id), (account, type, logged_at, id),
 * (account, message_id, logged_at, id); the extension's Recipient by
 * (account, lower(recipient), logged_at, id) and its Subject by a trigram index
 * of the messages (migration 1015, docs/adr/0051).
 */
export interface EventFilter extends Omit<EventRowFilter, "messageIds"> {
  /** A fragment of the message's Subject, case-insensitive (an extension, docs/contract.md §7.6). */
  subject?: string;
  startFrom?: number;
  retrieveCount?: number;
}

const ENGAGEMENT = new Set<EventType>(["opened", "clicked", "unsubscribed"]);

const EMPTY_HEADERS: MessageHeaders = { MessageId: "", From: [], ReplyTo: [], To: [], Cc: [], Bcc: [], Subject: "" };

export async function listEvents(
  reads: EventReads,
  accountId: string,
  f: EventFilter,
  onError: (err: unknown) => void = () => {},
): Promise<EventsResponse> {
  // An id that is no UUID names no message (and must not reach a uuid comparison).
  if (f.messageId !== undefined && !isUuid(f.messageId)) return { TotalRecords: 0, Events: [] };
  const rowFilter = await rowFilterOf(reads, accountId, f);
  if (!rowFilter) return { TotalRecords: 0, Events: [] };
  const limit = f.retrieveCount ?? DEFAULT_RETRIEVE_COUNT;
  const offset = f.startFrom ?? 0;
  if (rowFilter.messageIds !== undefined) {
    // A Subject's few messages: their events read once, paged and counted (docs/adr/0054).
    const { rows, total } = await selectMessagesEventPage(reads.database, accountId, rowFilter, limit, offset);
    return { TotalRecords: total, Events: rows.map(toRecord) };
  }
  const [page, count] = await Promise.all([
    selectEventPage(reads.database, accountId, rowFilter, limit, offset),
    countEvents(reads, accountId, rowFilter, onError),
  ]);
  return { TotalRecords: count, Events: page.map(toRecord) };
}

/** The filter in the event log's terms: a Subject becomes the messages it matches; undefined when it matches none. */
async function rowFilterOf(reads: EventReads, accountId: string, f: EventFilter): Promise<EventRowFilter | undefined> {
  const rest: EventRowFilter = { startDate: f.startDate, endDate: f.endDate, type: f.type, messageId: f.messageId, recipient: f.recipient };
  if (f.subject === undefined) return rest;
  const matches = await selectMessagesBySubject(reads.database, accountId, subjectPattern(f.subject), MAX_SUBJECT_MATCHES);
  if (matches.length === 0) return undefined;
  // A message's events are logged at or after it was accepted: no day table before the oldest match's can hold one.
  const from = subjectEventsFrom(matches.map((m) => m.createdAt));
  return { ...rest, messageIds: matches.map((m) => m.id), startDate: Math.max(rest.startDate ?? from, from) };
}

/** TotalRecords: hourly summaries for the long past, rows for the rest (lib/domain/events/event-counts.ts). */
export async function countEvents({ database, rollups }: EventReads, accountId: string, f: EventRowFilter, onError: (err: unknown) => void): Promise<number> {
  // One message's, one recipient's or a few messages' events: counted from their index (the summaries know neither).
  if (f.messageId !== undefined || f.recipient !== undefined || f.messageIds !== undefined) return countEventRows(database, accountId, f);
  const row = await countEventsSummarised(database, accountId, f, FAR_FUTURE);
  rollups.schedule(accountId, { rolledUntil: row.ru, oldest: row.oldest }, onError);
  return row.n;
}

/** One event record, members in the spec's order, then the additive Url, Tags, EventID and (delivered) Tls. */
export function toRecord(r: ListedEventRow): EventRecord {
  const engagement = ENGAGEMENT.has(r.type);
  return {
    Event: r.type,
    LoggedAt: r.logged_at,
    LogLevel: r.log_level as EventRecord["LogLevel"],
    Message: {
      Headers: r.headers ?? { ...EMPTY_HEADERS, MessageId: r.message_id },
      Size: r.size ?? 0,
      Transport: (r.transport ?? "api") as EventRecord["Message"]["Transport"],
    },
    Recipient: r.recipient,
    Reason: r.reason,
    ...(engagement && {
      Ip: r.ip ?? "",
      Geolocation: { City: r.geo_city ?? "", Region: r.geo_region ?? "", Country: r.geo_country ?? "" },
    }),
    ...(r.type === "clicked" && { Url: r.url ?? "" }),
    Tags: r.tags ?? [],
    EventID: String(r.id),
    ...(r.type === "delivered" && r.tls && { Tls: tlsRecordOf(r.tls) }),
  };
}

/** The stored verdict (lib/delivery/tls-policy/tls-result.ts) in the record's member names. */
function tlsRecordOf(t: NonNullable<ListedEventRow["tls"]>): NonNullable<EventRecord["Tls"]> {
  return {
    Policy: t.policy as NonNullable<EventRecord["Tls"]>["Policy"],
    ...(t.mode && { Mode: t.mode as "enforce" | "testing" }),
    ...(t.version && { Version: t.version }),
    ...(t.cipher && { Cipher: t.cipher }),
    Verified: t.verified,
    ...(t.failure && { Failure: t.failure }),
  };
}
