import type pg from "pg";
import {
  DEFAULT_DELIVERIES_COUNT,
  type DeliveriesResponse,
  type DeliveryDetail,
  type DeliveryRecord,
  type DeliveryStatus,
} from "../contract/webhook-deliveries";

/**
 * The deliveries of one webhook (docs/contract.md §16): its notifications,
 * newest first, with their latest response and their attempt log. Every
 * query names the account, so another account's delivery is not found.
 */

/** Stored statuses behind each status of the API: a held notification (webhook disabled) is still to be sent. */
export const STORED_STATUSES: Record<DeliveryStatus, string[]> = {
  pending: ["pending", "held"],
  succeeded: ["delivered"],
  failed: ["failed", "cancelled"],
};

/** Unix seconds within what a timestamptz holds (the API accepts any safe integer). */
export function clampSeconds(s: number | undefined): number | null {
  return s === undefined ? null : Math.min(Math.max(s, 0), 253_402_300_799);
}

function apiStatusOf(stored: string): DeliveryStatus {
  return stored === "delivered" ? "succeeded" : stored === "failed" || stored === "cancelled" ? "failed" : "pending";
}

interface Row {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  event: string | null;
  message_id: string | null;
  last_code: number | null;
}

const SELECT_DELIVERY = `SELECT n.id, n.status, n.attempts, n.next_attempt_at, n.created_at,
       n.payload->>'Event' AS event, n.payload->>'MessageID' AS message_id,
       (SELECT a.status_code FROM webhook_attempts a WHERE a.notification_id = n.id ORDER BY a.id DESC LIMIT 1) AS last_code
  FROM webhook_notifications n`;

function render(r: Row): DeliveryRecord {
  const status = apiStatusOf(r.status);
  return {
    DeliveryID: String(r.id),
    Event: r.event ?? "",
    MessageID: r.message_id ?? "",
    Status: status,
    Attempts: r.attempts,
    LastResponseCode: r.last_code ?? 0,
    NextAttemptAt: r.status === "pending" ? r.next_attempt_at.toISOString() : null,
    CreatedAt: r.created_at.toISOString(),
  };
}

export interface DeliveriesFilter {
  status?: DeliveryStatus;
  /** Unix seconds, inclusive. */
  startDate?: number;
  endDate?: number;
  startFrom?: number;
  retrieveCount?: number;
}

/** The account's webhook's deliveries matching `filter`, newest first; the caller checked that the webhook is the account's. */
export async function listDeliveries(pool: pg.Pool, accountId: string, webhookId: number, filter: DeliveriesFilter): Promise<DeliveriesResponse> {
  const where = `n.webhook_id = $1 AND n.account_id = $2
     AND ($3::text[] IS NULL OR n.status = ANY ($3::text[]))
     AND ($4::bigint IS NULL OR n.created_at >= to_timestamp($4::bigint))
     AND ($5::bigint IS NULL OR n.created_at < to_timestamp($5::bigint + 1))`;
  const values = [webhookId, accountId, filter.status ? STORED_STATUSES[filter.status] : null, clampSeconds(filter.startDate), clampSeconds(filter.endDate)];
  const [count, page] = await Promise.all([
    pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_notifications n WHERE ${where}`, values),
    pool.query<Row>(`${SELECT_DELIVERY} WHERE ${where} ORDER BY n.id DESC OFFSET $6 LIMIT $7`, [
      ...values,
      filter.startFrom ?? 0,
      filter.retrieveCount ?? DEFAULT_DELIVERIES_COUNT,
    ]),
  ]);
  return { TotalRecords: Number(count.rows[0]?.n ?? 0), Deliveries: page.rows.map(render) };
}

/** One delivery of the account's webhook with every attempt, oldest first; undefined when there is none. */
export async function getDelivery(pool: pg.Pool, accountId: string, webhookId: number, deliveryId: string): Promise<DeliveryDetail | undefined> {
  const { rows } = await pool.query<Row>(`${SELECT_DELIVERY} WHERE n.id = $1::bigint AND n.webhook_id = $2 AND n.account_id = $3`, [deliveryId, webhookId, accountId]);
  if (!rows[0]) return undefined;
  const attempts = await pool.query<{ attempted_at: Date; duration_ms: number; status_code: number; body_excerpt: string; error: string | null }>(
    `SELECT attempted_at, duration_ms, status_code, body_excerpt, error FROM webhook_attempts WHERE notification_id = $1 ORDER BY id`,
    [rows[0].id],
  );
  return {
    ...render(rows[0]),
    WebhookID: String(webhookId),
    AttemptLog: attempts.rows.map((a) => ({
      AttemptedAt: a.attempted_at.toISOString(),
      DurationMs: a.duration_ms,
      ResponseCode: a.status_code,
      ResponseBody: a.body_excerpt,
      Error: a.error ?? "",
    })),
  };
}
