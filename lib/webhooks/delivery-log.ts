import {
  DEFAULT_DELIVERIES_COUNT,
  type DeliveriesResponse,
  type DeliveryDetail,
  type DeliveryRecord,
  type DeliveryStatus,
} from "../contract/webhook-deliveries";
import type { Queryable } from "../storage/database";
import { deliveryAttemptRows, deliveryRow, deliveryRowsPage, type DeliveryRow } from "../storage/webhook-delivery-rows";

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

function render(r: DeliveryRow): DeliveryRecord {
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
export async function listDeliveries(q: Queryable, accountId: string, webhookId: number, filter: DeliveriesFilter): Promise<DeliveriesResponse> {
  const page = await deliveryRowsPage(q, accountId, webhookId, {
    statuses: filter.status ? STORED_STATUSES[filter.status] : null,
    startDate: clampSeconds(filter.startDate),
    endDate: clampSeconds(filter.endDate),
    offset: filter.startFrom ?? 0,
    limit: filter.retrieveCount ?? DEFAULT_DELIVERIES_COUNT,
  });
  return { TotalRecords: page.total, Deliveries: page.rows.map(render) };
}

/** One delivery of the account's webhook with every attempt, oldest first; undefined when there is none. */
export async function getDelivery(q: Queryable, accountId: string, webhookId: number, deliveryId: string): Promise<DeliveryDetail | undefined> {
  const row = await deliveryRow(q, accountId, webhookId, deliveryId);
  if (!row) return undefined;
  const attempts = await deliveryAttemptRows(q, row.id);
  return {
    ...render(row),
    WebhookID: String(webhookId),
    AttemptLog: attempts.map((a) => ({
      AttemptedAt: a.attempted_at.toISOString(),
      DurationMs: a.duration_ms,
      ResponseCode: a.status_code,
      ResponseBody: a.body_excerpt,
      Error: a.error ?? "",
    })),
  };
}
