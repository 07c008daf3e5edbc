import type { Queryable } from "./database";
import { createdInIdDays } from "./day-partitions";
import { DELIVER_ENTRIES_SQL } from "./deliver-entries-sql";

/**
 * The statements of queue control (lib/delivery/destinations/queue-control.ts):
 * the pending recipients (queued or deferred) counted by recipient domain,
 * made due now, or read to be failed. A recipient's domain is what follows
 * the last `@` of its address, lower case.
 */

const DOMAIN_OF = (email: string) => `lower(substring(${email} from '@([^@]*)$'))`;
// `$1` the domain (null: every domain), `$2` the account (null: every account).
const OF_DOMAIN_AND_ACCOUNT = `($1::text IS NULL OR ${DOMAIN_OF("r.email")} = $1::text) AND ($2::uuid IS NULL OR r.account_id = $2::uuid)`;

export interface PendingByDomainRow {
  domain: string;
  queued: number;
  deferred: number;
  /** Pending recipients whose deliver job a worker holds now. */
  in_flight: number;
  accounts: number;
  next_attempt_at: Date | null;
  oldest_at: Date;
  /** The latest replies of its deferred recipients, newest first (at most 3). */
  last_replies: string[] | null;
}

/** Every recipient domain with pending recipients, most pending first (at most `limit` domains). */
export async function selectPendingByDomain(q: Queryable, limit: number): Promise<PendingByDomainRow[]> {
  const { rows } = await q.query<PendingByDomainRow>(
    `WITH held AS (
         SELECT DISTINCT (rid #>> '{}')::bigint AS id
           FROM pgboss.job j, ${DELIVER_ENTRIES_SQL} AS e, jsonb_array_elements(e->'recipientIds') AS rid
          WHERE j.name = 'deliver' AND j.state = 'active' AND jsonb_typeof(rid) = 'number'
       )
       SELECT ${DOMAIN_OF("r.email")} AS domain,
              count(*) FILTER (WHERE r.status = 'queued')::int AS queued,
              count(*) FILTER (WHERE r.status = 'deferred')::int AS deferred,
              count(*) FILTER (WHERE r.id IN (SELECT id FROM held))::int AS in_flight,
              count(DISTINCT r.account_id)::int AS accounts,
              min(r.next_attempt_at) FILTER (WHERE r.status = 'deferred') AS next_attempt_at,
              min(r.updated_at) AS oldest_at,
              (array_agg(r.last_reply ORDER BY r.last_attempt_at DESC) FILTER (WHERE r.last_reply IS NOT NULL AND r.last_reply <> ''))[1:3] AS last_replies
         FROM message_recipients r
        WHERE r.status IN ('queued', 'deferred')
        GROUP BY 1
        ORDER BY count(*) DESC, 1
        LIMIT ${Math.max(1, Math.floor(limit))}`,
  );
  return rows;
}

/** Delivery attempts of the last minute by recipient domain (the recipients of today's and yesterday's partitions). */
export async function selectAttemptsLastMinuteByDomain(q: Queryable): Promise<{ domain: string; attempts: number }[]> {
  const { rows } = await q.query<{ domain: string; attempts: number }>(
    `SELECT ${DOMAIN_OF("r.email")} AS domain, count(*)::int AS attempts
       FROM delivery_attempts a
       JOIN message_recipients r ON r.id = a.recipient_id
      WHERE a.recipient_id >= ((floor(extract(epoch FROM now()) / 86400)::bigint - 1) << 32)
        AND r.id >= ((floor(extract(epoch FROM now()) / 86400)::bigint - 1) << 32)
        AND a.attempted_at > now() - interval '1 minute'
      GROUP BY 1`,
  );
  return rows;
}

/**
 * Makes the deferred recipients of the domain (null: every domain) and
 * account (null: every account) that are not due yet due now: their waiting
 * deliver jobs start now and their next attempt says so. Returns how many recipients.
 */
export async function makeDeferredDueNow(q: Queryable, domain: string | null, accountId: string | null): Promise<number> {
  const { rows } = await q.query<{ recipients: number }>(
    `WITH due AS (
         UPDATE message_recipients r SET next_attempt_at = now()
          WHERE r.status = 'deferred' AND (r.next_attempt_at IS NULL OR r.next_attempt_at > now()) AND ${OF_DOMAIN_AND_ACCOUNT}
         RETURNING r.id
       ), jobs AS (
         UPDATE pgboss.job j SET start_after = now()
          WHERE j.name = 'deliver' AND j.state IN ('created', 'retry') AND j.start_after > now()
            AND EXISTS (SELECT 1 FROM ${DELIVER_ENTRIES_SQL} AS e, jsonb_array_elements(e->'recipientIds') AS rid
                         WHERE jsonb_typeof(rid) = 'number' AND (rid #>> '{}')::bigint IN (SELECT id FROM due))
         RETURNING j.id
       )
       SELECT (SELECT count(*) FROM due)::int AS recipients, (SELECT count(*) FROM jobs)::int AS jobs`,
    [domain, accountId],
  );
  return rows[0]?.recipients ?? 0;
}

export interface PendingRecipientRow {
  id: string;
  email: string;
  attempts: number;
  message_id: string;
  account_id: string;
  /** When its message was accepted (or its scheduled time). */
  accepted_at: Date;
}

/** The pending recipients of the domain (null: every domain) and account (null: every account), by id after `afterId`. */
export async function selectPendingRecipientsOf(
  q: Queryable,
  p: { domain: string | null; accountId: string | null; afterId: string; limit: number },
): Promise<PendingRecipientRow[]> {
  const { rows } = await q.query<PendingRecipientRow>(
    `SELECT r.id, r.email, r.attempts, r.message_id, r.account_id, COALESCE(m.send_at, m.created_at) AS accepted_at
       FROM message_recipients r
       JOIN messages m ON m.id = r.message_id AND ${createdInIdDays("m.created_at", "r.id", "r.id")}
      WHERE r.status IN ('queued', 'deferred') AND ${OF_DOMAIN_AND_ACCOUNT} AND r.id > $3::bigint
        AND m.schedule_status IS DISTINCT FROM 'scheduled'
      ORDER BY r.id
      LIMIT ${Math.max(1, Math.floor(p.limit))}`,
    [p.domain, p.accountId, p.afterId],
  );
  return rows;
}
