import type { Queryable } from "./database";
import { RETAINED_FROM } from "./retention-sql";

/** A message a Subject fragment matched: its id and when it was accepted (Unix seconds, rounded down). */
export interface SubjectMatch {
  id: string;
  createdAt: number;
}

/**
 * The account's newest messages, within its retention period, whose Subject
 * matches `pattern` (an ILIKE pattern, lib/domain/events/event-search.ts), at
 * most `limit`, newest first: messages_subject_trgm (migration 1015,
 * docs/adr/0051) finds them when the fragment is rare, the account's
 * newest-first index when it is common. Each with its created_at, which
 * bounds where its events can be (docs/adr/0054).
 */
export async function selectMessagesBySubject(q: Queryable, accountId: string, pattern: string, limit: number): Promise<SubjectMatch[]> {
  // Unnamed, so planned for each fragment: a generic plan cannot tell a rare fragment from a common one.
  const { rows } = await q.query<{ id: string; created_at: number }>({
    text: `SELECT m.id, floor(extract(epoch FROM m.created_at))::bigint AS created_at FROM messages m
            WHERE m.account_id = $1 AND m.created_at >= to_timestamp(${RETAINED_FROM}) AND m.subject ILIKE $2
            ORDER BY m.created_at DESC
            LIMIT $3`,
    values: [accountId, pattern, limit],
  });
  return rows.map((r) => ({ id: r.id, createdAt: Number(r.created_at) }));
}
