import type { Queryable } from "./database";

/**
 * The deliveries of one webhook as stored (lib/webhooks/delivery-log.ts,
 * docs/contract.md §16): its notifications, newest first, with their latest
 * response code and their attempt log. Every query names the account, so
 * another account's delivery is not found.
 */

export interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  event: string | null;
  message_id: string | null;
  last_code: number | null;
}

export interface DeliveryAttemptRow {
  attempted_at: Date;
  duration_ms: number;
  status_code: number;
  body_excerpt: string;
  error: string | null;
}

export interface DeliveryRowsFilter {
  /** Stored statuses; null for all. */
  statuses: string[] | null;
  /** Unix seconds, inclusive; null for open. */
  startDate: number | null;
  endDate: number | null;
  offset: number;
  limit: number;
}

const SELECT_DELIVERY = `SELECT n.id, n.status, n.attempts, n.next_attempt_at, n.created_at,
       n.payload->>'Event' AS event, n.payload->>'MessageID' AS message_id,
       (SELECT a.status_code FROM webhook_attempts a WHERE a.notification_id = n.id ORDER BY a.id DESC LIMIT 1) AS last_code
  FROM webhook_notifications n`;

/**
 * The matching count and one page of the account's webhook's deliveries,
 * newest first, in one statement: one snapshot, so that `TotalRecords` never
 * disagrees with the page while a dispatcher finishes deliveries (two
 * statements on two connections did, seen in CI).
 */
export async function deliveryRowsPage(q: Queryable, accountId: string, webhookId: number, filter: DeliveryRowsFilter): Promise<{ total: number; rows: DeliveryRow[] }> {
  const where = `n.webhook_id = $1 AND n.account_id = $2
     AND ($3::text[] IS NULL OR n.status = ANY ($3::text[]))
     AND ($4::bigint IS NULL OR n.created_at >= to_timestamp($4::bigint))
     AND ($5::bigint IS NULL OR n.created_at < to_timestamp($5::bigint + 1))`;
  const { rows } = await q.query<{ total: string } & { [K in keyof DeliveryRow]: DeliveryRow[K] | null }>(
    `WITH total AS (SELECT count(*) AS n FROM webhook_notifications n WHERE ${where}),
          page AS (${SELECT_DELIVERY} WHERE ${where} ORDER BY n.id DESC OFFSET $6 LIMIT $7)
     SELECT total.n AS total, page.* FROM total LEFT JOIN page ON true ORDER BY page.id DESC`,
    [webhookId, accountId, filter.statuses, filter.startDate, filter.endDate, filter.offset, filter.limit],
  );
  const page = rows.filter((r): r is { total: string } & DeliveryRow => r.id !== null).map(({ total: _total, ...row }) => row);
  return { total: Number(rows[0]?.total ?? 0), rows: page };
}

/** One delivery of the account's webhook; undefined when there is none. */
export async function deliveryRow(q: Queryable, accountId: string, webhookId: number, deliveryId: string): Promise<DeliveryRow | undefined> {
  const { rows } = await q.query<DeliveryRow>(`${SELECT_DELIVERY} WHERE n.id = $1::bigint AND n.webhook_id = $2 AND n.account_id = $3`, [deliveryId, webhookId, accountId]);
  return rows[0];
}

/** A delivery's attempts, oldest first. */
export async function deliveryAttemptRows(q: Queryable, deliveryId: string): Promise<DeliveryAttemptRow[]> {
  const { rows } = await q.query<DeliveryAttemptRow>(
    `SELECT attempted_at, duration_ms, status_code, body_excerpt, error FROM webhook_attempts WHERE notification_id = $1 ORDER BY id`,
    [deliveryId],
  );
  return rows;
}
