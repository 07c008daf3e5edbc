import type { EmailRequest } from "../../contract/email";
import { TRACKING_HEADER } from "../../contract/email";
import { escapeHtml, oneLine } from "../staff/invitation-email";

/**
 * The email that tells an account's admins that one of its webhooks was
 * disabled (docs/contract.md §16, ADR 0410), pure. The URL and the account
 * name come from people: one line, escaped in the HTML part; links are not
 * tracked.
 */
export function webhookDisabledEmail(input: {
  from: string;
  to: string;
  accountName: string;
  webhookId: number;
  url: string;
  reason: string;
  dashboardLink: string;
}): EmailRequest {
  const account = oneLine(input.accountName, 100) || "your account";
  const url = oneLine(input.url, 300);
  const reason = oneLine(input.reason, 300);
  const text = [
    `Mailroom disabled webhook ${input.webhookId} of ${account}: ${url}`,
    "",
    `Why: ${reason}`,
    "",
    "Its notifications are kept, not sent, for the account's retention period. Once the endpoint answers again, re-enable the webhook: the kept notifications are then sent.",
    "",
    `Webhooks and their deliveries: ${input.dashboardLink}`,
  ].join("\n");
  const html = [
    `<p>Mailroom disabled webhook ${input.webhookId} of <strong>${escapeHtml(account)}</strong>: <code>${escapeHtml(url)}</code></p>`,
    `<p>Why: ${escapeHtml(reason)}</p>`,
    "<p>Its notifications are kept, not sent, for the account's retention period. Once the endpoint answers again, re-enable the webhook: the kept notifications are then sent.</p>",
    `<p><a href="${escapeHtml(input.dashboardLink)}">Webhooks and their deliveries</a></p>`,
  ].join("\n");
  return {
    From: { name: "Mailroom", email: input.from },
    To: [{ name: "", email: input.to }],
    Subject: `Webhook ${input.webhookId} of ${account} was disabled`,
    ContentType: "HTML",
    HTMLContent: html,
    PlainContent: text,
    Tags: ["mailroom-webhook-disabled"],
    Headers: { [TRACKING_HEADER]: "none" },
  };
}
