import type { Queryable } from "./database";
import { RETAINED_FROM } from "./retention-sql";

/**
 * The ids of the account's newest messages, within its retention period, whose
 * Subject matches `pattern` (an ILIKE pattern, lib/domain/events/event-search.ts),
 * at most `limit`: messages_subject_trgm (migration 1015, docs/adr/0051) finds
 * them when the fragment is rare, the account's newest-first index when it is common.
 */
export async function selectMessageIdsBySubject(q: Queryable, accountId: string, pattern: string, limit: number): Promise<string[]> {
  // Unnamed, so planned for each fragment: a generic plan cannot tell a rare fragment from a common one.
  const { rows } = await q.query<{ id: string }>({
    text: `SELECT m.id FROM messages m
            WHERE m.account_id = $1 AND m.created_at >= to_timestamp(${RETAINED_FROM}) AND m.subject ILIKE $2
            ORDER BY m.created_at DESC
            LIMIT $3`,
    values: [accountId, pattern, limit],
  });
  return rows.map((r) => r.id);
}
