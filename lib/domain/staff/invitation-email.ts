import type { EmailRequest } from "../../contract/email";
import { TRACKING_HEADER } from "../../contract/email";

/**
 * The invitation email (ADR 0512), pure: who is invited to which account
 * with which role, and the link that accepts. Names come from people (the
 * account's name, the inviter's): escaped in the HTML part, and the link is
 * not tracked (`X-Mailroom-Track: none`), so that the token is stored
 * nowhere but in the mail itself.
 */

export const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** One line, at most `max` characters: a name must not add headers or lines of its own. */
export function oneLine(s: string, max: number): string {
  let out = "";
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    out += code < 0x20 || code === 0x7f ? " " : ch;
  }
  return out.trim().slice(0, max);
}

export function invitationEmail(input: {
  from: string;
  to: string;
  accountName: string;
  role: string;
  inviter: string;
  link: string;
  expiresAt: Date;
}): EmailRequest {
  const account = oneLine(input.accountName, 100) || "an account";
  const inviter = oneLine(input.inviter, 254);
  const expires = `${input.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const who = inviter ? `${inviter} invites you` : "You are invited";
  const text = [
    `${who} to join ${account} on Mailroom as ${input.role}.`,
    "",
    `Accept the invitation: ${input.link}`,
    "",
    `The link works once, until ${expires}. If you did not expect this email, ignore it: nothing happens unless you accept.`,
  ].join("\n");
  const html = [
    `<p>${escapeHtml(who)} to join <strong>${escapeHtml(account)}</strong> on Mailroom as <strong>${escapeHtml(input.role)}</strong>.</p>`,
    `<p><a href="${escapeHtml(input.link)}">Accept the invitation</a></p>`,
    `<p>The link works once, until ${escapeHtml(expires)}. If you did not expect this email, ignore it: nothing happens unless you accept.</p>`,
  ].join("\n");
  return {
    From: { name: "Mailroom", email: input.from },
    To: [{ name: "", email: input.to }],
    Subject: `Invitation to ${account} on Mailroom`,
    ContentType: "HTML",
    HTMLContent: html,
    PlainContent: text,
    Tags: ["mailroom-invitation"],
    Headers: { [TRACKING_HEADER]: "none" },
  };
}
