import type pg from "pg";

/**
 * "Every accepted recipient reaches its final event", counted in the
 * database for a set of accepted MessageIDs (one recipient each).
 */

export interface Reconciliation {
  accepted: number;
  /** Accepted messages whose row exists: accepted - inDatabase were lost. */
  inDatabase: number;
  /** Distinct (message, recipient) with a delivered/failed/rejected event. */
  finalRecipients: number;
  /** All final events: more than finalRecipients means a recipient got two. */
  finalEvents: number;
  delivered: number;
  failed: number;
  rejected: number;
  /** Recipients still queued or deferred. */
  pending: number;
}

type Queryable = Pick<pg.Pool, "query">;

export async function reconcile(db: Queryable, accountId: string, messageIds: string[]): Promise<Reconciliation> {
  // One statement, so one snapshot: a recipient is never seen final and still queued.
  const { rows } = await db.query<Omit<Reconciliation, "accepted">>(
    `SELECT (SELECT count(*)::int FROM messages WHERE account_id = $1 AND id = ANY($2::uuid[])) AS "inDatabase",
            f.recipients AS "finalRecipients", f.events AS "finalEvents", f.delivered, f.failed, f.rejected,
            (SELECT count(*)::int FROM message_recipients
              WHERE account_id = $1 AND message_id = ANY($2::uuid[]) AND status IN ('queued', 'deferred')) AS pending
       FROM (SELECT count(*)::int AS events,
                    count(DISTINCT (message_id, recipient))::int AS recipients,
                    count(*) FILTER (WHERE type = 'delivered')::int AS delivered,
                    count(*) FILTER (WHERE type = 'failed')::int AS failed,
                    count(*) FILTER (WHERE type = 'rejected')::int AS rejected
               FROM events
              WHERE account_id = $1 AND message_id = ANY($2::uuid[]) AND type IN ('delivered', 'failed', 'rejected')) f`,
    [accountId, messageIds],
  );
  return { accepted: messageIds.length, ...rows[0]! };
}

export function describeReconciliation(r: Reconciliation): string {
  return `accepted ${r.accepted}, in the database ${r.inDatabase} (lost ${r.accepted - r.inDatabase}), final ${r.finalRecipients} (delivered ${r.delivered}, failed ${r.failed}, rejected ${r.rejected}; ${r.finalEvents - r.finalRecipients} duplicate final events), still queued/deferred ${r.pending}`;
}

/** Recipients of the account still queued or deferred (every message of the account, not only a given set). */
export async function pendingRecipients(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM message_recipients WHERE account_id = $1 AND status IN ('queued', 'deferred')",
    [accountId],
  );
  return rows[0]!.n;
}

/** pg-boss `deliver` jobs a worker holds right now. */
export async function activeDeliverJobs(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'deliver' AND state = 'active'");
  return rows[0]!.n;
}

/**
 * Accepted → delivered per recipient (messages.created_at → the recipient's
 * final status write), sorted; each delivery's time (epoch ms) and the last one's.
 */
export async function deliveryLatencies(
  db: Queryable,
  accountId: string,
  messageIds: string[],
): Promise<{ ms: number[]; deliveredAt: number[]; lastDeliveredAt: number }> {
  const { rows } = await db.query<{ ms: number; at: Date }>(
    `SELECT EXTRACT(EPOCH FROM (r.updated_at - m.created_at)) * 1000 AS ms, r.updated_at AS at
       FROM messages m JOIN message_recipients r ON r.message_id = m.id
      WHERE m.account_id = $1 AND m.id = ANY($2::uuid[]) AND r.status = 'delivered'`,
    [accountId, messageIds],
  );
  const deliveredAt = rows.map((r) => r.at.getTime());
  return {
    ms: rows.map((r) => Number(r.ms)).sort((a, b) => a - b),
    deliveredAt,
    lastDeliveredAt: deliveredAt.reduce((max, t) => Math.max(max, t), 0),
  };
}

/** The recipients delivered more than `overMs` after their message was accepted, slowest first, with their attempts (benchmarks: why a message waited). */
export async function slowDeliveries(db: Queryable, accountId: string, messageIds: string[], overMs: number, limit = 5) {
  const { rows } = await db.query<{ messageId: string; ms: number; attempts: number; history: string | null }>(
    `SELECT m.id AS "messageId", EXTRACT(EPOCH FROM (r.updated_at - m.created_at)) * 1000 AS ms, r.attempts,
            (SELECT string_agg(a.outcome || ' at +' || round(EXTRACT(EPOCH FROM (a.attempted_at - m.created_at)) * 1000) || ' ms: ' || left(a.reply, 80), '; ' ORDER BY a.attempted_at)
               FROM delivery_attempts a WHERE a.recipient_id = r.id) AS history
       FROM messages m JOIN message_recipients r ON r.message_id = m.id
      WHERE m.account_id = $1 AND m.id = ANY($2::uuid[]) AND r.status = 'delivered'
        AND r.updated_at - m.created_at > make_interval(secs => $3::float8 / 1000)
      ORDER BY r.updated_at - m.created_at DESC`,
    [accountId, messageIds, overMs],
  );
  return { count: rows.length, slowest: rows.slice(0, limit).map((r) => ({ ...r, ms: Number(r.ms) })) };
}
