import { randomUUID } from "node:crypto";
import type { EventRow } from "../../lib/storage/event-rows";

/** A `delivered` event row of the account at `loggedAt` (Unix seconds), for insertEvents. */
export function eventAt(accountId: string, loggedAt: number, messageId: string = randomUUID()): EventRow {
  return {
    account_id: accountId,
    message_id: messageId,
    type: "delivered",
    logged_at: loggedAt,
    log_level: "info",
    recipient: "bob@example.net",
    reason: "",
    ip: null,
    geo_city: null,
    geo_region: null,
    geo_country: null,
    url: null,
    details: null,
  };
}
