import { OFFLOAD_MIN_BYTES } from "../json-worker";
import { DELIVER_ENTRIES_SQL } from "./deliver-entries-sql";
import type { Queryable } from "./database";
import { createdInIdDays, idBounds } from "./day-partitions";

/**
 * Channel that wakes the deliver loops of every process at once (else they poll every
 * second): migration 0300's trigger announces every insert of recipients on it at
 * commit, and `wakeDeliverLoops` what inserts deliver jobs without recipients.
 */
export const DELIVER_CHANNEL = "mailroom_deliver";

/** Announces deliver jobs on DELIVER_CHANNEL; in a transaction, at its commit (NOTIFY is transactional). */
export async function wakeDeliverLoops(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify('${DELIVER_CHANNEL}', '')`);
}

export interface MessageRow {
  id: string;
  account_id: string;
  from_domain: string;
  content: unknown;
  /** The content as JSON text instead, when the message is large: parsed off the event loop (lib/json-worker.ts). */
  content_text: string | null;
  created_at: Date;
  /** A scheduled message's time (docs/adr/0125): its delivery starts, and its max age counts, from then. */
  send_at: Date | null;
  size: number;
  track_opens: boolean;
  track_clicks: boolean;
  links_listed: boolean;
  dkim_domain: string | null;
  dkim_selector: string | null;
  dkim_private_key: string | null;
  /** The sender domain's verified tracking domain (migration 1013): its links' host instead of the public URL's. */
  tracking_domain?: string | null;
  /** The matches of the account's inbound routes (null when none): its reply addresses (reply-address.ts). */
  inbound_matches?: string[] | null;
}

export interface RecipientRow {
  id: number;
  email: string;
  attempts: number;
}

const bounds = (ids: readonly number[]) => {
  const [lo, hi] = idBounds(ids);
  return { lo, hi };
};

export type Loaded = MessageRow & { recipients: RecipientRow[] | null };
export type LoadRequest = { messageId: string; recipientIds: number[] };

/**
 * The message, its signing key and its pending recipients (a deferred one
 * waits for its own retry job unless that time has come), for every job that
 * asks in the same moment: the loop starts a whole fetched batch of jobs at
 * once, so one statement loads them all (lib/delivery/load-messages.ts batches the reads).
 */
export async function loadMessagesToDeliver(q: Queryable, requests: LoadRequest[]): Promise<(Loaded | undefined)[]> {
  const { rows } = await q.query<Loaded & { i: number }>({
    name: "mailroom_deliver_load",
    text: `SELECT j.i, m.id, m.account_id, m.from_domain, m.created_at, m.send_at,
                  CASE WHEN m.size > ${OFFLOAD_MIN_BYTES} THEN NULL ELSE m.content END AS content,
                  CASE WHEN m.size > ${OFFLOAD_MIN_BYTES} THEN m.content::text END AS content_text, m.size, a.track_opens, a.track_clicks,
                  m.tracked_links IS NOT NULL AS links_listed,
                  d.name AS dkim_domain, d.dkim_selector, d.dkim_private_key,
                  CASE WHEN d.tracking_verified_at IS NOT NULL THEN d.tracking_domain END AS tracking_domain,
                  (SELECT array_agg(ir.match) FROM inbound_routes ir WHERE ir.account_id = m.account_id) AS inbound_matches,
                  (SELECT json_agg(json_build_object('id', r.id, 'email', r.email, 'attempts', r.attempts) ORDER BY r.id)
                     FROM message_recipients r
                    WHERE r.message_id = m.id AND r.id = ANY (string_to_array(j.ids, ',')::bigint[]) AND r.status IN ('queued', 'deferred')
                      AND r.id BETWEEN j.lo AND j.hi -- prunes to the ids' days (docs/adr/0043); ANY of an array prunes nothing
                      AND (r.next_attempt_at IS NULL OR r.next_attempt_at <= now() + interval '2 seconds')) AS recipients
             FROM jsonb_to_recordset($1::jsonb) AS j(i int, message_id uuid, ids text, lo bigint, hi bigint)
             -- One index probe per job in its ids' days' table (docs/adr/0044): LATERAL keeps the plan a lookup
             -- per job whatever the statistics, the batch's bounds prune the other days when it starts.
             CROSS JOIN LATERAL (
               SELECT * FROM messages m
                WHERE m.id = j.message_id AND ${createdInIdDays("m.created_at", "j.lo", "j.hi")}
                  AND ${createdInIdDays("m.created_at", "$2::bigint", "$3::bigint")}
                LIMIT 1) m
             JOIN accounts a ON a.id = m.account_id
             LEFT JOIN sender_domains d ON d.account_id = m.account_id AND d.name = lower(m.from_domain)`,
    values: [
      JSON.stringify(requests.map((r, i) => ({ i, message_id: r.messageId, ids: r.recipientIds.join(","), ...bounds(r.recipientIds) }))),
      ...idBounds(requests.flatMap((r) => r.recipientIds)),
    ],
  });
  const out: (Loaded | undefined)[] = requests.map(() => undefined);
  for (const row of rows) out[row.i] = row;
  return out;
}


/** A recipient the stranded-recipient sweep finalises (lib/delivery/stranded-recipients.ts). */
export interface StrandedRow {
  id: string;
  email: string;
  attempts: number;
  message_id: string;
  account_id: string;
  created_at: Date;
  last_reply: string | null;
  too_old: boolean;
}

/**
 * Recipients still queued or deferred, after `afterId` in id order, whose
 * message is older than `oldest`, or who were untouched since
 * `untouchedSince` and have no live `deliver` job (created, retry or active:
 * pg-boss's job_state enum orders them before completed). One snapshot, so
 * a recipient with a live job is never taken for stranded.
 */
export async function findStrandedRecipients(
  q: Queryable,
  p: { oldest: Date; untouchedSince: Date; afterId: string; limit: number },
): Promise<StrandedRow[]> {
  const { rows } = await q.query<StrandedRow>(
    `WITH live AS (
         SELECT e->>'messageId' AS message_id, rid::text AS rid
           FROM pgboss.job j, ${DELIVER_ENTRIES_SQL} AS e, jsonb_path_query(e, '$.recipientIds[*] ? (@.type() == "number")') AS rid
          WHERE j.name = 'deliver' AND j.state < 'completed'
       )
       SELECT r.id, r.email, r.attempts, r.message_id, m.account_id, COALESCE(m.send_at, m.created_at) AS created_at, r.last_reply,
              COALESCE(m.send_at, m.created_at) < $1 AS too_old
         FROM message_recipients r JOIN messages m ON m.id = r.message_id AND ${createdInIdDays("m.created_at", "r.id", "r.id")}
        WHERE r.status IN ('queued', 'deferred') AND r.id > $3::bigint
          -- A scheduled message has no job until it is released, and its age counts from its time (docs/adr/0125).
          AND m.schedule_status IS DISTINCT FROM 'scheduled'
          AND (COALESCE(m.send_at, m.created_at) < $1
               OR (r.updated_at < $2 AND NOT EXISTS (SELECT 1 FROM live WHERE live.message_id = r.message_id::text AND live.rid = r.id::text)))
        ORDER BY r.id
        LIMIT ${p.limit}`,
    [p.oldest, p.untouchedSince, p.afterId],
  );
  return rows;
}
