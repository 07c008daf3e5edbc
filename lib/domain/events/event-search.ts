/**
 * GET /events' extension filters (docs/contract.md §7.6, docs/adr/0051): the
 * Subject fragment as an ILIKE pattern, and how many messages it may match.
 */

/**
 * A Subject fragment matches the account's newest matching messages, at most this many: a
 * fragment common to most subjects ("Your") would otherwise put every message of the period in
 * one query, and each matched id costs the events' read on every day table (docs/adr/0051). A
 * support agent narrows with Recipient, Event or the dates.
 */
export const MAX_SUBJECT_MATCHES = 100;

/** `fragment` anywhere in the subject, its own `%`, `_` and `\` taken literally (ILIKE's default escape is `\`). */
export function subjectPattern(fragment: string): string {
  return `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Seconds an event's LoggedAt may precede its message's created_at: the event's time is the
 * app's clock, rounded down to the second, the message's the database's (docs/adr/0054).
 * A day, as event_page_messages allows for (migration 1004): at most one more day table read.
 */
export const EVENT_CLOCK_SKEW = 86_400;

/**
 * Where the events of the matched messages (their created_at, Unix seconds) begin: none is
 * logged before its message was accepted, give or take the clocks' difference (docs/adr/0054).
 */
export function subjectEventsFrom(createdAt: readonly number[]): number {
  return Math.min(...createdAt) - EVENT_CLOCK_SKEW;
}
