import { OUTAGE_MESSAGES, outageMessage } from "../domain/shared/outage-message";
import { ApiRequestError } from "./client";

/** A sentence for the page that says what went wrong and what to do. */
export function describeApiError(err: unknown): string {
  if (err instanceof ApiRequestError) {
    const first = err.errors[0];
    if (err.status === 401) return "The dashboard's API key was refused. Check MAILROOM_API_KEY, or unset it to use the provisioned key.";
    // A MAILROOM_API_KEY made with a narrow scope (docs/contract.md §17.2).
    if (first?.Code === 403) return `The dashboard's API key may not do this (${first.Message}). Set MAILROOM_API_KEY to a full key, or unset it to use the provisioned key.`;
    if (err.status === 429) return "The API is rate limiting the dashboard. Wait a few seconds and try again.";
    if (first?.Code === 507) return OUTAGE_MESSAGES["disk-full"];
    if (err.status === 503) return OUTAGE_MESSAGES.unavailable;
    if (first?.Field) return `The API refused the filter ${first.Field}: ${first.Message}. Change the filter and try again.`;
    return `The API answered ${err.status}${first ? ` (${first.Message})` : ""}. Try again.`;
  }
  const outage = outageMessage(err);
  if (outage) return outage;
  const message = err instanceof Error ? err.message : String(err);
  return `${message.replace(/\.$/, "")}. Check that the API is running and try again.`;
}
