import type { EmailRequest } from "../../../contract/email";
import { TRACKING_HEADER } from "../../../contract/email";
import { escapeHtml, oneLine } from "../../staff/invitation-email";

/**
 * The email that tells an account's admins its reputation passed a
 * guardrail (docs/adr/0136), pure: a warning (sending goes on) or a pause
 * (sending stopped until an owner resumes it). Links are not tracked.
 */
export function reputationEmail(input: {
  from: string;
  to: string;
  accountName: string;
  level: "warning" | "paused";
  reason: string;
  dashboardLink: string;
}): EmailRequest {
  const account = oneLine(input.accountName, 100) || "your account";
  const reason = oneLine(input.reason, 300);
  const what =
    input.level === "paused"
      ? `Mailroom paused the sending of ${account}: ${reason}. API requests and SMTP submissions that send are refused until an owner resumes it (the dashboard, or \`mailroom accounts resume\`). Mail accepted before the pause is still delivered.`
      : `The reputation of ${account} passed its warning threshold: ${reason}. Past the pause threshold its sending stops until an owner resumes it.`;
  const advice = "Remove addresses that bounce or complain, and send only to recipients who asked for the mail.";
  return {
    From: { name: "Mailroom", email: input.from },
    To: [{ name: "", email: input.to }],
    Subject: input.level === "paused" ? `Sending of ${account} is paused` : `Reputation warning for ${account}`,
    ContentType: "HTML",
    HTMLContent: [
      `<p>${escapeHtml(what)}</p>`,
      `<p>${escapeHtml(advice)}</p>`,
      `<p><a href="${escapeHtml(input.dashboardLink)}">The account in the dashboard</a></p>`,
    ].join("\n"),
    PlainContent: [what, "", advice, "", `The account in the dashboard: ${input.dashboardLink}`].join("\n"),
    Tags: [input.level === "paused" ? "mailroom-sending-paused" : "mailroom-reputation-warning"],
    Headers: { [TRACKING_HEADER]: "none" },
  };
}
