import type { AuthenticatedKey } from "../../accounts/api-keys";

/**
 * The refusal of a send by an account the reputation guardrails paused
 * (docs/contract.md §17.6, docs/adr/0136): the API answers 403 code 403
 * with this Message, SMTP submission 550 5.7.1 with it. Undefined: the
 * account sends.
 */
export function sendingPausedMessage(key: Pick<AuthenticatedKey, "sendingPausedReason">): string | undefined {
  if (key.sendingPausedReason === undefined) return undefined;
  return `Sending is paused for this account: ${key.sendingPausedReason}. An owner resumes it in the dashboard or with \`mailroom accounts resume\``;
}
