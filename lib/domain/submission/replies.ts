import type { WindowKind } from "../sending/limits";

/**
 * Every refusal the SMTP submission server gives, as the reply code and its
 * text (with the RFC 3463 enhanced code first). docs/smtp.md lists them.
 */

export interface SmtpReply {
  code: number;
  text: string;
}

const reply = (code: number, text: string): SmtpReply => ({ code, text });

export const REPLY = {
  authRequired: reply(530, "5.7.0 Authentication required: AUTH PLAIN or LOGIN with an API key as the password"),
  encryptionRequired: reply(538, "5.7.11 Encryption required: issue STARTTLS (or use the implicit TLS port) before AUTH"),
  badCredentials: reply(535, "5.7.8 Authentication credentials invalid: the password must be an active API key"),
  accountSuspended: reply(535, "5.7.8 Authentication refused: the account of this API key is suspended"),
  /** docs/contract.md §17.2: a `read` key is a valid credential that may not submit. */
  scopeCannotSubmit: (scope: string): SmtpReply =>
    reply(535, `5.7.8 Authentication refused: this API key's scope is ${scope}; SMTP submission needs a send or full key`),
  /** docs/adr/0136: the reputation guardrails paused the account; the text says why (sendingPausedMessage). */
  sendingPaused: (message: string): SmtpReply => reply(550, `5.7.1 ${message}`),
  authThrottled: reply(454, "4.7.0 Too many failed authentications from your address, try again in a minute"),
  senderNotVerified: (domain: string): SmtpReply => reply(550, `5.7.1 Sender domain ${domain} is not a verified sender domain of this account`),
  /** docs/contract.md §17.3: the SMTP form of code 32 for a key limited to some sender domains. */
  senderNotAllowedForKey: (domain: string): SmtpReply => reply(550, `5.7.1 Sender domain ${domain} is not one of the sender domains of this API key`),
  fromHeader: reply(550, "5.7.1 The From header must hold exactly one address, on a verified sender domain of this account"),
  originatorHeader: (header: string, single: boolean): SmtpReply =>
    reply(550, `5.7.1 The ${header} header must hold ${single ? "exactly one address" : "addresses only"}, on a verified sender domain of this account`),
  originatorNotVerified: (header: string, domain: string): SmtpReply =>
    reply(550, `5.7.1 Sender domain ${domain} of the ${header} header is not a verified sender domain of this account`),
  duplicateHeader: (header: string, count: number): SmtpReply => reply(554, `5.6.0 The message has ${count} ${header} headers: RFC 5322 allows one`),
  bareCr: reply(554, "5.6.0 The message header has a CR without LF: lines must end with CRLF"),
  tooManyResent: (max: number): SmtpReply => reply(554, `5.6.0 The message has more than ${max} Resent-From and Resent-Sender headers`),
  badRecipient: reply(501, "5.1.3 Invalid recipient address"),
  badSender: reply(501, "5.1.7 Invalid sender address"),
  suppressed: (reason: string): SmtpReply => reply(550, `5.7.1 Recipient is on the suppression list of this account (${reason})`),
  allSuppressed: reply(550, "5.7.1 Every recipient is on the suppression list of this account"),
  tooManyRecipients: (what: string): SmtpReply => reply(452, `4.5.3 Too many recipients: ${what}`),
  tooBig: (max: number): SmtpReply => reply(552, `5.3.4 Message too big: at most ${max} bytes`),
  rateLimited: (kind: WindowKind, seconds: number): SmtpReply =>
    reply(451, `4.7.1 Rate limit of this API key reached (per ${kind}): try again in ${seconds} seconds`),
  quotaReached: (seconds: number): SmtpReply => reply(554, `5.7.1 Daily quota of this API key reached: it resets in ${seconds} seconds`),
  unparsable: reply(554, "5.6.0 The message could not be parsed as RFC 5322 / MIME"),
  temporary: reply(451, "4.3.0 Temporary failure, try again later"),
  /** The server's disk is full or below its reserve (MAILROOM_DISK_MIN_FREE): RFC 5321 452, RFC 3463 4.3.1 "mail system full". */
  diskFull: reply(452, "4.3.1 Mail system full: the server's disk is full, try again later"),
  /** Too many messages wait for delivery (MAILROOM_MAX_BACKLOG, docs/contract.md §18): RFC 3463 4.3.2 "system not accepting network messages". */
  backlogFull: reply(451, "4.3.2 Too many messages wait for delivery: try again in a few seconds"),
  accepted: (messageId: string): SmtpReply => reply(250, `2.0.0 OK ${messageId}`),
} as const;
