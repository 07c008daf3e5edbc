import type pg from "pg";
import { OFFLOAD_MIN_BYTES } from "../json-worker";
import { createGroupCommit } from "../storage/group-commit";
import { isRowDataError } from "../storage/sqlstate";

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
  /** The matches of the account's inbound routes (null when none): its reply addresses (reply-address.ts). */
  inbound_matches?: string[] | null;
}

export interface RecipientRow {
  id: number;
  email: string;
  attempts: number;
}

export type Loaded = MessageRow & { recipients: RecipientRow[] | null };
export type LoadRequest = { messageId: string; recipientIds: number[] };

/**
 * The message, its signing key and its pending recipients (a deferred one
 * waits for its own retry job unless that time has come), for every job that
 * asks in the same moment: the loop starts a whole fetched batch of jobs at
 * once, so one statement loads them all (group-commit.ts batches the reads).
 */
async function loadMessages(pool: Pick<pg.Pool, "query">, requests: LoadRequest[]): Promise<(Loaded | undefined)[]> {
  const { rows } = await pool.query<Loaded & { i: number }>({
    name: "mailroom_deliver_load",
    text: `SELECT j.i, m.id, m.account_id, m.from_domain, m.created_at, m.send_at,
                  CASE WHEN m.size > ${OFFLOAD_MIN_BYTES} THEN NULL ELSE m.content END AS content,
                  CASE WHEN m.size > ${OFFLOAD_MIN_BYTES} THEN m.content::text END AS content_text, m.size, a.track_opens, a.track_clicks,
                  m.tracked_links IS NOT NULL AS links_listed,
                  d.name AS dkim_domain, d.dkim_selector, d.dkim_private_key,
                  (SELECT array_agg(ir.match) FROM inbound_routes ir WHERE ir.account_id = m.account_id) AS inbound_matches,
                  (SELECT json_agg(json_build_object('id', r.id, 'email', r.email, 'attempts', r.attempts) ORDER BY r.id)
                     FROM message_recipients r
                    WHERE r.message_id = m.id AND r.id = ANY (string_to_array(j.ids, ',')::bigint[]) AND r.status IN ('queued', 'deferred')
                      AND (r.next_attempt_at IS NULL OR r.next_attempt_at <= now() + interval '2 seconds')) AS recipients
             FROM jsonb_to_recordset($1::jsonb) AS j(i int, message_id uuid, ids text)
             JOIN messages m ON m.id = j.message_id
             JOIN accounts a ON a.id = m.account_id
             LEFT JOIN sender_domains d ON d.account_id = m.account_id AND d.name = lower(m.from_domain)`,
    values: [JSON.stringify(requests.map((r, i) => ({ i, message_id: r.messageId, ids: r.recipientIds.join(",") })))],
  });
  const out: (Loaded | undefined)[] = requests.map(() => undefined);
  for (const row of rows) out[row.i] = row;
  return out;
}

export type MessageLoader = (r: LoadRequest) => Promise<Loaded | undefined>;

/** One per process (buildAppContext, `ctx.deliveryLoader`): the jobs it serves share its statements. */
export function createMessageLoader(pool: Pick<pg.Pool, "query">): MessageLoader {
  return createGroupCommit((requests: LoadRequest[]) => loadMessages(pool, requests), {
    maxBatch: 64,
    maxInFlight: 1,
    // A job whose data is malformed (no UUID) fails alone, not the jobs loaded with it.
    isolate: isRowDataError,
  });
}
