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
